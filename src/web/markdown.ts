import MarkdownIt from 'markdown-it';
import type { Html } from './html.ts';
import { trusted } from './html.ts';

/**
 * Markdown from app archives (descriptions, changelogs) and from users (comments, replies) is
 * hostile: raw HTML is not rendered (it shows as text), links keep only http, https and mailto,
 * every link gets `rel="nofollow ugc noopener"`, and images are not drawn at all: an image shows
 * as its description. (The pages load images only from the store, issue 54; an image pointing at
 * one of the store's own addresses would make every visitor's browser request it.)
 * markdown-it escapes all text and attribute values itself.
 */
const SAFE_LINK = /^(https?:|mailto:)/i;

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
markdown.validateLink = (url: string): boolean => SAFE_LINK.test(url.trim());

const defaultLinkOpen =
  markdown.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
markdown.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  if (token !== undefined) token.attrSet('rel', 'nofollow ugc noopener');
  return defaultLinkOpen(tokens, idx, options, env, self);
};
markdown.renderer.rules.image = (tokens, idx) => markdown.utils.escapeHtml(tokens[idx]?.content ?? '');

// Headings start at h3: the page has its h1 (the app) and h2 (the section) already.
markdown.core.ruler.push('shift_headings', (state) => {
  for (const token of state.tokens) {
    if (token.type === 'heading_open' || token.type === 'heading_close')
      token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
  }
  return true;
});

/** Renders untrusted Markdown to HTML that is safe to put in a page. */
export function renderMarkdown(source: string): Html {
  return trusted(markdown.render(source));
}
