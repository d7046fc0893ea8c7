import type { Provenance } from '../../domain/accounts/token-scopes.ts';
import { describePublisher } from '../../domain/trusted-publishing/publishers.ts';
import type { TrustedPublisher } from '../../domain/trusted-publishing/publishers.ts';
import { field, postForm, textArea } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';

/**
 * The manage page's trusted publishers (issue 53): the CI workflows that may publish the app with
 * no stored secret. The owner and administrators add and remove them; co-maintainers see them.
 */
export interface PublishersSectionInput {
  readonly base: string;
  readonly token: string;
  readonly owns: boolean;
  readonly publishers: readonly TrustedPublisher[];
  readonly form: FormState;
  readonly around: Html;
}

const PROVIDERS = [
  ['github', 'GitHub Actions'],
  ['gitlab', 'GitLab CI'],
  ['oidc', 'Another issuer an administrator allows'],
] as const;

function pinned(publisher: TrustedPublisher): string {
  if (publisher.provider === 'oidc') return '';
  const ids = [publisher.repositoryId, publisher.ownerId];
  if (ids.every((id) => id === null)) return ' (ids are pinned at the first publish)';
  return ` (ids ${ids.map((id) => id ?? '–').join(' / ')})`;
}

export function publishersSection(input: PublishersSectionInput): Html {
  const { base, token, owns, publishers, form } = input;
  const chosen = form.values?.['provider'] ?? 'github';
  return html`<section aria-labelledby="publishers"><h2 id="publishers">Trusted publishers</h2>
<p>A CI workflow named here publishes releases with no stored token: its job's ID token is exchanged for a token that can publish this app for 15 minutes, and each release records the repository, commit and run it came from. <a href="/api/#trusted-publishing">How to set up the workflow</a>.</p>${input.around}
${
  publishers.length === 0
    ? html`<p>No trusted publishers.</p>`
    : html`<ul class="plain">${publishers.map(
        (publisher) =>
          html`<li>${describePublisher(publisher)}<span class="muted">${pinned(publisher)}</span> ${
            owns
              ? postForm(
                  `${base}/publishers/remove#publishers`,
                  token,
                  html`<input type="hidden" name="id" value="${String(publisher.id)}"><button type="submit" class="secondary" aria-label="Remove the trusted publisher ${describePublisher(publisher)}">Remove</button>`,
                  'inline',
                )
              : ''
          }</li>`,
      )}</ul>`
}
${
  owns
    ? postForm(
        `${base}/publishers/add#publishers`,
        token,
        html`<p class="field"><label for="publisher-provider">CI</label> <select id="publisher-provider" name="provider">${PROVIDERS.map(([value, label]) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`)}</select></p>
${field({ name: 'repository', label: 'Repository or project', hint: 'GitHub: owner/name. GitLab: the project path, such as group/project.', required: false, maxLength: 200, form: 'publisher' }, form)}
${field({ name: 'workflow', label: 'Workflow file (GitHub)', hint: 'The file under .github/workflows, such as release.yml', required: false, maxLength: 120, form: 'publisher' }, form)}
${field({ name: 'environment', label: 'Environment (optional)', hint: 'Only jobs that run in this deployment environment', required: false, maxLength: 255, form: 'publisher' }, form)}
${field({ name: 'ref', label: 'Ref (GitLab, optional)', hint: 'Only pipelines for this branch (such as main), or a full ref such as refs/tags/v1.0', required: false, maxLength: 255, form: 'publisher' }, form)}
<details><summary>Another issuer, numeric ids, claims</summary>
${field({ name: 'issuer', label: 'Issuer (optional)', hint: 'Empty: github.com or gitlab.com. GitHub Enterprise Server, a self-managed GitLab or another CI: its issuer URL, once an administrator allows it.', required: false, maxLength: 300, form: 'publisher' }, form)}
${field({ name: 'repositoryId', label: 'Repository or project id (optional)', hint: 'The numeric id; empty: pinned at the first publish. A deleted and re-created repository of the same name has another id.', required: false, maxLength: 20, form: 'publisher' }, form)}
${field({ name: 'ownerId', label: 'Owner or namespace id (optional)', hint: 'The numeric id; empty: pinned at the first publish', required: false, maxLength: 20, form: 'publisher' }, form)}
${textArea({ name: 'claims', label: 'Claims (another issuer)', hint: 'One claim=value per line; the issuer says which claims must be named', required: false, rows: 3, maxLength: 4000, form: 'publisher' }, form)}
</details>
<p><button type="submit">Trust this workflow</button></p>`,
      )
    : ''
}</section>`;
}

/** Where a release came from, for the release tables: the repository linked to its run. */
export function provenanceCell(provenance: Provenance | undefined, notThisWay: string): Html {
  if (provenance === undefined) return html`<span class="muted">${notThisWay}</span>`;
  const label = `${provenance.repository}${provenance.commit === null ? '' : ` @ ${provenance.commit.slice(0, 7)}`}`;
  return provenance.runUrl === null
    ? html`${label}`
    : html`<a href="${provenance.runUrl}" rel="nofollow noopener">${label}</a>`;
}
