import type { OutgoingMail } from '../mail.ts';

/**
 * The mails the store sends, in English (the site's own strings are in `web/strings.ts`; these
 * are kept beside the use cases that send them). Each says why it was sent and what to do if the
 * reader did not ask for it.
 */
const SIGNATURE = '\n\n-- \nThe app store';

export function verificationMail(to: string, username: string, link: string, isNewAccount: boolean): OutgoingMail {
  const why = isNewAccount
    ? `Someone, hopefully you, created the account "${username}" on the app store with this address.`
    : `Someone, hopefully you, asked to use this address for the account "${username}" on the app store.`;
  return {
    to,
    subject: 'Confirm your e-mail address',
    text: `Hello ${username},\n\n${why} To confirm it, open this link within three days:\n\n${link}\n\nIf it was not you, ignore this mail: nothing changes without the link.${SIGNATURE}`,
  };
}

export function addressTakenMail(to: string, signInLink: string, resetLink: string): OutgoingMail {
  return {
    to,
    subject: 'You already have an account',
    text: `Hello,\n\nSomeone, hopefully you, tried to use this address for a new account on the app store, or for another account. It already belongs to an account, so it was not used for that: your account is as it was.\n\nSign in: ${signInLink}\nForgot your password? ${resetLink}\n\nIf it was not you, ignore this mail.${SIGNATURE}`,
  };
}

export function passwordResetMail(to: string, username: string, link: string): OutgoingMail {
  return {
    to,
    subject: 'Reset your password',
    text: `Hello ${username},\n\nSomeone, hopefully you, asked to reset the password of the account "${username}" on the app store. To choose a new password, open this link within an hour; it works once:\n\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.${SIGNATURE}`,
  };
}

export function invitationMail(to: string, username: string, link: string): OutgoingMail {
  return {
    to,
    subject: 'You are invited to the app store',
    text: `Hello ${username},\n\nAn administrator of the app store created the account "${username}" for you. To choose your password, open this link within seven days; it works once:\n\n${link}${SIGNATURE}`,
  };
}

export function certificateDecisionMail(
  to: string,
  username: string,
  decision: { appId: string; issued: boolean; reason: string },
  link: string,
): OutgoingMail {
  const text = decision.issued
    ? `An administrator approved your request for a certificate for the app ${decision.appId}. Download it from your certificates page:\n\n${link}\n\nThen register the app with it (the page shows how).`
    : `An administrator declined your request for a certificate for the app ${decision.appId}.${decision.reason === '' ? '' : `\n\nThe reason given: ${decision.reason}`}\n\nYour requests: ${link}`;
  return {
    to,
    subject: decision.issued
      ? `Your certificate for ${decision.appId}`
      : `Your certificate request for ${decision.appId}`,
    text: `Hello ${username},\n\n${text}${SIGNATURE}`,
  };
}

export function unlockRevocationMail(
  to: string,
  username: string,
  revoked: { appId: string; serial: string },
  link: string,
): OutgoingMail {
  const text = `The owner of the app ${revoked.appId} had unlocked it for transfer when you got a certificate for it. The unlock has ended without the app passing to you, so that certificate (serial ${revoked.serial}) is revoked: it can no longer register the app or sign its releases.\n\nIf the app is to pass to you, ask its owner to unlock it again, then get a new certificate. Your certificates: ${link}`;
  return {
    to,
    subject: `Your certificate for ${revoked.appId} was revoked`,
    text: `Hello ${username},\n\n${text}${SIGNATURE}`,
  };
}
