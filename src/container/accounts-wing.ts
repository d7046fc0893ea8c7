import { notificationRepository } from '../storage/repositories/notification.repository.ts';
import { accessTokenRepository } from '../storage/repositories/access-token.repository.ts';
import { twoFactorRepository } from '../storage/repositories/two-factor.repository.ts';
import type { TwoFactorDeps } from '../domain/accounts/two-factor.ts';
import { webauthnCeremonies } from '../passkeys/webauthn-ceremonies.ts';
import { messagesFor } from '../i18n/messages.ts';
import path from 'node:path';
import type { Config } from '../config/config.ts';
import { publicUrlOf } from '../config/config.ts';
import type { SelfServiceDeps } from '../domain/accounts/account-links.ts';
import { deliverAccountMail } from '../domain/accounts/account-mail-jobs.ts';
import type { ExternalLoginDeps } from '../domain/accounts/external-login.ts';
import { PasswordHasher } from '../domain/accounts/password-hash.ts';
import type { SecretKeys } from '../domain/accounts/secret-key.ts';
import type { SessionDeps } from '../domain/accounts/sessions.ts';
import type { AccountStore } from '../domain/accounts/user.ts';
import type { Mailer } from '../domain/mail.ts';
import { MailQueue } from '../domain/mail-queue.ts';
import type { RateLimiter } from '../domain/rate-limit.ts';
import { signInRules } from '../domain/rate-limit.ts';
import { externalProviders } from '../external-login/external-providers.ts';
import { fileMailer } from '../mail/file-mailer.ts';
import { smtpMailer } from '../mail/smtp-mailer.ts';
import type { DatabaseHandle } from '../storage/database.ts';
import { externalIdentityRepository } from '../storage/repositories/external-identity.repository.ts';
import { mailQueueRepository } from '../storage/repositories/mail-queue.repository.ts';
import { errorText } from '../store-log.ts';
import type { StoreLog } from '../store-log.ts';
import type { TrustContext } from '../downloads/trust-context.ts';

/** Where mail goes without SMTP (null: SMTP is configured). */
export interface MailFiles {
  readonly directory: string | null;
}

/** The accounts and mail wing: sign-in, sessions and tokens, the website's accounts, external login, the mail queue. */
export interface AccountsWing {
  readonly accounts: SessionDeps & TwoFactorDeps & { readonly keys: SecretKeys };
  readonly selfService: SelfServiceDeps & TwoFactorDeps;
  readonly externalLogin: ExternalLoginDeps;
  readonly mailQueue: MailQueue;
  readonly mailFiles: MailFiles;
  /** Stops the mail queue and closes the SMTP connections. */
  close(): Promise<void>;
}

export interface AccountsWingOptions {
  readonly store: AccountStore;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  /** The TLS context identity providers are reached with (the tests' authority besides Node's roots). */
  readonly downloadTrust?: TrustContext;
  readonly providerTimeoutSeconds?: number;
  /** 'own': deliver only the mails this process queues (a command); 'all': every due one (a server). */
  readonly mailDelivery?: 'own' | 'all';
  readonly log: StoreLog;
  /** Who hears of each mail written to a file (without SMTP) and its link: the log's warnings unless given. */
  readonly mailFileNotice?: (message: string) => void;
}

export function accountsWing(
  config: Config,
  database: DatabaseHandle,
  now: () => Date,
  options: AccountsWingOptions,
): AccountsWing {
  const { db } = database;
  const { store, keys, limiter } = options;
  const smtp = config.mail.smtpUrl === null ? null : smtpMailer({ url: config.mail.smtpUrl, from: config.mail.from });
  const mailDirectory = path.join(config.dataDir, 'mail');
  const mailFiles: MailFiles = { directory: smtp === null ? mailDirectory : null };
  const notice = options.mailFileNotice ?? ((message: string) => options.log.warn(message));
  const mailer: Mailer = smtp ?? fileMailer(mailDirectory, config.mail.from, notice, now);
  const passwords = new PasswordHasher(config.passwordCost);
  const tokens = accessTokenRepository(db);
  const publicUrl = publicUrlOf(config);
  // Formatted when first needed: a process's first message format costs about 17 ms (the
  // formatter's locale data), which a start or a command that needs none would pay before anything.
  const siteName = () => messagesFor('en').format('site.siteName');
  const accounts: AccountsWing['accounts'] = {
    store,
    keys,
    limiter,
    signIn: signInRules(config.signInLimits),
    now,
    passwords,
    tokens,
    twoFactor: twoFactorRepository(db),
    passkeys: webauthnCeremonies(publicUrl, siteName),
    issuerName: siteName,
  };
  const notifications = notificationRepository(db);
  const mailQueue = new MailQueue(
    mailQueueRepository(db),
    (job) =>
      deliverAccountMail(job, {
        store,
        keys,
        now,
        limiter,
        publicUrl,
        transport: mailer,
        optedOut: (userId) => notifications.optedOut(userId),
      }),
    now,
    { problem: (message, error) => options.log.warn(message, error === undefined ? {} : { error: errorText(error) }) },
    options.mailDelivery === 'own',
  );
  const selfService: SelfServiceDeps & TwoFactorDeps = {
    ...accounts,
    mail: mailQueue,
    publicUrl,
    signUpOpen: config.signUpOpen,
  };
  return {
    accounts,
    selfService,
    externalLogin: {
      ...selfService,
      identities: externalIdentityRepository(db),
      providers: externalProviders(config.externalLogin, options.downloadTrust, options.providerTimeoutSeconds),
    },
    mailQueue,
    mailFiles,
    async close() {
      await mailQueue.stop();
      smtp?.close();
    },
  };
}
