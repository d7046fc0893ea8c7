/**
 * The discussion link of an app that gives none (info.xml's <discussion>): the store's template
 * with the app's id in it, as the original store links every app to its forum category
 * (`https://help.nextcloud.com/c/apps/{id-dashed}`). An empty template (the default) leaves it
 * empty. `{id}` is the app id, `{id-dashed}` the app id with its underscores as dashes.
 */
export function discussionLink(template: string, appId: string, own: string): string {
  if (own !== '' || template === '') return own;
  return template.replaceAll('{id-dashed}', appId.replaceAll('_', '-')).replaceAll('{id}', appId);
}

/** The app with its discussion link filled in from the template (the same app when nothing changes). */
export function withDiscussionLink<T extends { readonly id: string; readonly discussion: string }>(
  app: T,
  template: string,
): T {
  const discussion = discussionLink(template, app.id, app.discussion);
  return discussion === app.discussion ? app : { ...app, discussion };
}
