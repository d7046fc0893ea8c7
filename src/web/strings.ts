import type { Messages } from '../i18n/messages.ts';
import { messagesFor } from '../i18n/messages.ts';
import type { SiteLanguage } from '../i18n/site-languages.ts';
import { languageTag } from '../i18n/site-languages.ts';

/**
 * The site's own text in one language: the messages of `src/i18n/catalogues/` (group `site`), as
 * texts, and as functions where a message has placeholders. A message's wording lives only in
 * the catalogues; what is chosen here is which whole message a case takes.
 */
/**
 * A version, a version range or an app id inside a sentence: kept left to right as one piece
 * (Unicode isolates), so "2.0.0-beta.1" does not come out turned around in an Arabic sentence.
 */
const ltr = (text: string): string => `\u2066${text}\u2069`;

function makeSiteStrings(m: Messages) {
  const oneDecimal = new Intl.NumberFormat(languageTag(m.language), { maximumFractionDigits: 1 });
  const separator = m.format('site.listSeparator');
  return {
    /** Items of a list as the language separates them (a comma, the Arabic comma, 、). */
    list: (items: readonly string[]) => items.join(separator),
    ...m.group('site'),
    appsInStore: (count: number) => m.format('site.appsInStore', { count }),
    /** `stars` from 1 to 5 (ratingToStars). */
    starsAlt: (stars: number) => m.format('site.starsAlt', { stars: oneDecimal.format(Math.round(stars * 10) / 10) }),
    updatedAgo: (ago: string) => m.format('site.updatedAgo', { ago }),
    /** The one way a range of Nextcloud versions is written (releaseRange, nextcloudRange). */
    versionRange: (min: string, max: string) =>
      m.format('site.versionRange', {
        kind:
          min === '' && max === ''
            ? 'any'
            : max === ''
              ? 'from'
              : min === ''
                ? 'upTo'
                : min === max
                  ? 'exactly'
                  : 'both',
        min,
        max,
      }),
    downloadFor: (platform: string, version: string) => m.format('site.downloadFor', { platform, version }),
    screenshotOf: (name: string, n: number) => m.format('site.screenshotOf', { name, n }),
    categoryTitle: (name: string) => m.format('site.categoryTitle', { name }),
    resultsFor: (text: string) => m.format('site.resultsFor', { text }),
    donate: (type: string) =>
      m.format('site.donate', { type: type === 'paypal' || type === 'stripe' ? type : 'other' }),
    found: (count: number) => m.format('site.found', { count }),
    pageOf: (page: number, pages: number) => m.format('site.pageOf', { page, pages }),
    accountOf: (username: string) => m.format('site.accountOf', { username }),
    checkInboxSignUp: (email: string) => m.format('site.checkInboxSignUp', { email }),
    verifiedText: (email: string) => m.format('site.verifiedText', { email }),
    newPasswordLead: (username: string) => m.format('site.newPasswordLead', { username }),
    signedInAs: (username: string) => m.format('site.signedInAs', { username }),
    emailChangeSent: (email: string) => m.format('site.emailChangeSent', { email }),
    signInWith: (provider: string) => m.format('site.signInWith', { provider }),
    externalFailedTitle: (provider: string) => m.format('site.externalFailedTitle', { provider }),
    chooseUsernameLead: (provider: string, suggestion: string) =>
      suggestion === ''
        ? m.format('site.chooseUsernameLead', { provider })
        : m.format('site.chooseUsernameLeadTaken', { provider, suggestion }),
    connectedAs: (label: string) => m.format('site.connectedAs', { label }),
    connect: (provider: string) => m.format('site.connect', { provider }),
    disconnect: (provider: string) => m.format('site.disconnect', { provider }),
    connected: (provider: string) => m.format('site.connected', { provider }),
    alreadyConnected: (provider: string) => m.format('site.alreadyConnected', { provider }),
    disconnected: (provider: string) => m.format('site.disconnected', { provider }),
    welcome: (provider: string) => m.format('site.welcome', { provider }),
    starsChoice: (n: number) => m.format('site.starsChoice', { n }),
    passkeyAdded: (added: string) => m.format('site.passkeyAdded', { added }),
    passkeyAddedUsed: (added: string, used: string) => m.format('site.passkeyAddedUsed', { added, used }),
    recoveryLeft: (left: number) => m.format('site.recoveryLeft', { left }),
    planSupports: (spec: string) => m.format('site.planSupports', { spec: ltr(spec) }),
    planNoneFits: (nextcloud: string, newest: string, needs: string) =>
      m.format('site.planNoneFits', { nextcloud: ltr(nextcloud), newest: ltr(newest), needs: ltr(needs) }),
    planInstalledNewer: (installed: string, nextcloud: string, best: string) =>
      m.format('site.planInstalledNewer', { installed: ltr(installed), nextcloud: ltr(nextcloud), best: ltr(best) }),
    planResult: (nextcloud: string) => m.format('site.planResult', { nextcloud }),
    ratedVersion: (version: string) => m.format('site.ratedVersion', { version: ltr(version) }),
    revokeToken: (name: string) => m.format('site.revokeToken', { name }),
    tokenDaysHint: (max: number, fallback: number) => m.format('site.tokenDaysHint', { max, default: fallback }),
  } as const;
}

export type SiteStrings = ReturnType<typeof makeSiteStrings>;

const made = new Map<SiteLanguage, SiteStrings>();

/** The site's text in `language`, made once per language. */
export function siteStrings(language: SiteLanguage): SiteStrings {
  let strings = made.get(language);
  if (strings === undefined) {
    strings = makeSiteStrings(messagesFor(language));
    made.set(language, strings);
  }
  return strings;
}
