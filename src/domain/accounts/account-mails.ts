import type { Messages } from '../../i18n/messages.ts';
import type { OutgoingMail } from '../mail.ts';
import { mailText } from '../mail.ts';

/**
 * The mails the store sends, in the recipient's language (`users.language`, English when unknown):
 * each message is one whole paragraph of the catalogues' `mail` group, kept beside the use cases
 * that send them. Each says why it was sent and what to do if the reader did not ask for it.
 */

export function verificationMail(
  m: Messages,
  to: string,
  username: string,
  link: string,
  isNewAccount: boolean,
): OutgoingMail {
  return {
    to,
    subject: m.format('mail.verifySubject'),
    text: mailText(m, m.format('mail.hello', { username }), [
      m.format(isNewAccount ? 'mail.verifyNewAccount' : 'mail.verifyChangedAddress', { username }),
      link,
      m.format('mail.verifyNotYou'),
    ]),
  };
}

export function addressTakenMail(m: Messages, to: string, signInLink: string, resetLink: string): OutgoingMail {
  return {
    to,
    subject: m.format('mail.takenSubject'),
    text: mailText(m, m.format('mail.helloAnonymous'), [
      m.format('mail.takenText'),
      `${m.format('mail.takenSignIn', { link: signInLink })}\n${m.format('mail.takenForgot', { link: resetLink })}`,
      m.format('mail.ignoreIfNotYou'),
    ]),
  };
}

export function passwordResetMail(m: Messages, to: string, username: string, link: string): OutgoingMail {
  return {
    to,
    subject: m.format('mail.resetSubject'),
    text: mailText(m, m.format('mail.hello', { username }), [
      m.format('mail.resetText', { username }),
      link,
      m.format('mail.resetNotYou'),
    ]),
  };
}

export function invitationMail(m: Messages, to: string, username: string, link: string): OutgoingMail {
  return {
    to,
    subject: m.format('mail.inviteSubject'),
    text: mailText(m, m.format('mail.hello', { username }), [m.format('mail.inviteText', { username }), link]),
  };
}

export function certificateDecisionMail(
  m: Messages,
  to: string,
  username: string,
  decision: { appId: string; issued: boolean; reason: string },
  link: string,
): OutgoingMail {
  const { appId } = decision;
  const paragraphs = decision.issued
    ? [m.format('mail.certificateIssuedText', { appId }), link, m.format('mail.certificateIssuedNext')]
    : [
        m.format('mail.certificateDeclinedText', { appId }),
        ...(decision.reason === '' ? [] : [m.format('mail.certificateDeclinedReason', { reason: decision.reason })]),
        m.format('mail.yourRequests', { link }),
      ];
  return {
    to,
    subject: m.format(decision.issued ? 'mail.certificateIssuedSubject' : 'mail.certificateDeclinedSubject', { appId }),
    text: mailText(m, m.format('mail.hello', { username }), paragraphs),
  };
}

export function unlockRevocationMail(
  m: Messages,
  to: string,
  username: string,
  revoked: { appId: string; serial: string },
  link: string,
): OutgoingMail {
  return {
    to,
    subject: m.format('mail.unlockRevokedSubject', { appId: revoked.appId }),
    text: mailText(m, m.format('mail.hello', { username }), [
      m.format('mail.unlockRevokedText', { appId: revoked.appId, serial: revoked.serial }),
      m.format('mail.unlockRevokedNext', { link }),
    ]),
  };
}
