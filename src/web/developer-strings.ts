import type { Messages } from '../i18n/messages.ts';
import { messagesFor } from '../i18n/messages.ts';
import type { SiteLanguage } from '../i18n/site-languages.ts';

/** The developer pages' own text in one language (catalogue group `dev`; the rest of the site's is in `strings.ts`). */
function makeDevStrings(m: Messages) {
  const texts = m.group('dev');
  return {
    ...texts,
    role: {
      owner: texts.roleOwner,
      'co-maintainer': texts.roleCoMaintainer,
      admin: texts.roleAdmin,
      none: '',
    } as Readonly<Record<string, string>>,
    requestStatus: {
      pending: texts.requestPending,
      issued: texts.requestIssued,
      rejected: texts.requestRejected,
    } as Readonly<Record<string, string>>,
    manage: (appId: string) => m.format('dev.manage', { appId }),
    issuedTitle: (appId: string) => m.format('dev.issuedTitle', { appId }),
    pendingText: (appId: string) => m.format('dev.pendingText', { appId }),
    registered: (appId: string) => m.format('dev.registered', { appId }),
    updated: (appId: string) => m.format('dev.updated', { appId }),
    publishLead: (kept: boolean) => (kept ? texts.publishLeadKept : texts.publishLeadLinked),
    downloadHint: (kept: boolean) => (kept ? texts.downloadHintKept : texts.downloadHintLinked),
    jobDone: (appId: string, version: string, created: boolean) =>
      m.format(created ? 'dev.jobPublished' : 'dev.jobUpdated', { appId, version }),
    problemIn: (element: string) => m.format('dev.problemIn', { element }),
    manageLead: (role: string) => m.format('dev.manageLead', { role }),
    iconLeftOut: (problem: string) => m.format('dev.iconLeftOut', { problem }),
    deleteRelease: (version: string) => m.format('dev.deleteRelease', { version }),
    releaseDeleted: (version: string) => m.format('dev.releaseDeleted', { version }),
    deprecatedSince: (day: string) => m.format('dev.deprecatedSince', { day }),
    orphanSince: (day: string) => m.format('dev.orphanSince', { day }),
    restoreButton: (version: string) => m.format('dev.restoreButton', { version }),
    releaseRetired: (version: string) => m.format('dev.releaseRetired', { version }),
    releaseRestored: (version: string) => m.format('dev.releaseRestored', { version }),
    remove: (username: string) => m.format('dev.remove', { username }),
    maintainerAdded: (username: string) => m.format('dev.maintainerAdded', { username }),
    maintainerAlready: (username: string) => m.format('dev.maintainerAlready', { username }),
    maintainerRemoved: (username: string) => m.format('dev.maintainerRemoved', { username }),
    confirmLabel: (appId: string) => m.format('dev.confirmLabel', { appId }),
    appDeleted: (appId: string) => m.format('dev.appDeleted', { appId }),
    chartWeeksCaption: (weeks: number) => m.format('dev.chartWeeksCaption', { weeks }),
    chartReleasesCaptionTop: (top: number, all: number) => m.format('dev.chartReleasesCaptionTop', { top, all }),
    chartNoDownloads: (weeks: number) => m.format('dev.chartNoDownloads', { weeks }),
    idsPinned: (ids: string) => m.format('dev.idsPinned', { ids }),
    removePublisher: (publisher: string) => m.format('dev.removePublisher', { publisher }),
  } as const;
}

/** The administration pages' own text in one language (catalogue group `admin`). */
function makeAdminStrings(m: Messages) {
  const texts = m.group('admin');
  return {
    ...texts,
    pendingRequests: (count: number) => m.format('admin.pendingRequests', { count }),
    reportsWaiting: (count: number) => m.format('admin.reportsWaiting', { count }),
    ratedBy: (username: string, appId: string) => m.format('admin.ratedBy', { username, appId }),
    blockRater: (username: string) => m.format('admin.blockRater', { username }),
    allowRater: (username: string) => m.format('admin.allowRater', { username }),
    raterBlocked: (username: string) => m.format('admin.raterBlocked', { username }),
    raterAllowed: (username: string) => m.format('admin.raterAllowed', { username }),
    usersAtGlance: (users: number, admins: number, disabled: number) =>
      m.format('admin.usersAtGlance', { users, admins, disabled }),
    userCount: (n: number) => m.format('admin.userCount', { n }),
    disable: (u: string) => m.format('admin.disable', { u }),
    enable: (u: string) => m.format('admin.enable', { u }),
    makeAdmin: (u: string) => m.format('admin.makeAdmin', { u }),
    revokeAdmin: (u: string) => m.format('admin.revokeAdmin', { u }),
    invited: (u: string, email: string) => m.format('admin.invited', { u, email }),
    disabledDone: (u: string) => m.format('admin.disabledDone', { u }),
    enabledDone: (u: string) => m.format('admin.enabledDone', { u }),
    adminDone: (u: string, admin: boolean) => m.format(admin ? 'admin.madeAdmin' : 'admin.noLongerAdmin', { u }),
    categorySaved: (id: string) => m.format('admin.categorySaved', { id }),
    platformSaved: (v: string) => m.format('admin.platformSaved', { v }),
    discoverSaved: (n: number, changed: boolean) =>
      changed ? m.format('admin.discoverSaved', { n }) : texts.discoverUnchanged,
    approve: (id: string) => m.format('admin.approve', { id }),
    reject: (id: string) => m.format('admin.reject', { id }),
    approved: (id: string) => m.format('admin.approved', { id }),
    rejected: (id: string) => m.format('admin.rejected', { id }),
    revokedDone: (serial: string, app: string | null, already: boolean) =>
      app === null
        ? m.format(already ? 'admin.alreadyRevoked' : 'admin.revokedDone', { serial })
        : m.format(already ? 'admin.alreadyRevokedApp' : 'admin.revokedDoneApp', { serial, app }),
  } as const;
}

export type DevStrings = ReturnType<typeof makeDevStrings>;
export type AdminStrings = ReturnType<typeof makeAdminStrings>;

const madeDev = new Map<SiteLanguage, DevStrings>();
const madeAdmin = new Map<SiteLanguage, AdminStrings>();

export function devStrings(language: SiteLanguage): DevStrings {
  let strings = madeDev.get(language);
  if (strings === undefined) madeDev.set(language, (strings = makeDevStrings(messagesFor(language))));
  return strings;
}

export function adminStrings(language: SiteLanguage): AdminStrings {
  let strings = madeAdmin.get(language);
  if (strings === undefined) madeAdmin.set(language, (strings = makeAdminStrings(messagesFor(language))));
  return strings;
}
