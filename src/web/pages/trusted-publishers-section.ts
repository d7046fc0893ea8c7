import type { Provenance } from '../../domain/accounts/token-scopes.ts';
import { describePublisher } from '../../domain/trusted-publishing/publishers.ts';
import type { TrustedPublisher } from '../../domain/trusted-publishing/publishers.ts';
import { field, postForm, textArea } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import type { DevStrings } from '../developer-strings.ts';
import type { PageTexts } from '../page-texts.ts';

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
  readonly t: PageTexts;
}

function pinned(dev: DevStrings, publisher: TrustedPublisher): string {
  if (publisher.provider === 'oidc') return '';
  const ids = [publisher.repositoryId, publisher.ownerId];
  if (ids.every((id) => id === null)) return ` ${dev.idsPinnedLater}`;
  return ` ${dev.idsPinned(ids.map((id) => id ?? '–').join(' / '))}`;
}

export function publishersSection(input: PublishersSectionInput): Html {
  const { base, token, owns, publishers, form, t } = input;
  const dev = t.dev;
  const providers = [
    ['github', 'GitHub Actions'],
    ['gitlab', 'GitLab CI'],
    ['oidc', dev.otherIssuer],
  ] as const;
  const chosen = form.values?.['provider'] ?? 'github';
  return html`<section aria-labelledby="publishers"><h2 id="publishers">${dev.publishersTitle}</h2>
<p>${t.tagged('dev.publishersLead', { howto: (inner) => html`<a href="/api/#trusted-publishing">${inner}</a>` })}</p>${input.around}
${
  publishers.length === 0
    ? html`<p>${dev.noPublishers}</p>`
    : html`<ul class="plain">${publishers.map(
        (publisher) =>
          html`<li>${describePublisher(publisher)}<span class="muted">${pinned(dev, publisher)}</span> ${
            owns
              ? postForm(
                  `${base}/publishers/remove#publishers`,
                  token,
                  html`<input type="hidden" name="id" value="${String(publisher.id)}"><button type="submit" class="secondary" aria-label="${dev.removePublisher(describePublisher(publisher))}">${dev.removeButton}</button>`,
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
        html`<p class="field"><label for="publisher-provider">${dev.publisherCi}</label> <select id="publisher-provider" name="provider">${providers.map(([value, label]) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`)}</select></p>
${field({ name: 'repository', label: dev.publisherRepository, hint: dev.publisherRepositoryHint, required: false, maxLength: 200, form: 'publisher' }, form)}
${field({ name: 'workflow', label: dev.publisherWorkflow, hint: dev.publisherWorkflowHint, required: false, maxLength: 120, form: 'publisher' }, form)}
${field({ name: 'environment', label: dev.publisherEnvironment, hint: dev.publisherEnvironmentHint, required: false, maxLength: 255, form: 'publisher' }, form)}
${field({ name: 'ref', label: dev.publisherRef, hint: dev.publisherRefHint, required: false, maxLength: 255, form: 'publisher' }, form)}
<details><summary>${dev.publisherMore}</summary>
${field({ name: 'issuer', label: dev.publisherIssuer, hint: dev.publisherIssuerHint, required: false, maxLength: 300, form: 'publisher' }, form)}
${field({ name: 'repositoryId', label: dev.publisherRepositoryId, hint: dev.publisherRepositoryIdHint, required: false, maxLength: 20, form: 'publisher' }, form)}
${field({ name: 'ownerId', label: dev.publisherOwnerId, hint: dev.publisherOwnerIdHint, required: false, maxLength: 20, form: 'publisher' }, form)}
${textArea({ name: 'claims', label: dev.publisherClaims, hint: dev.publisherClaimsHint, required: false, rows: 3, maxLength: 4000, form: 'publisher' }, form)}
</details>
<p><button type="submit">${dev.trustWorkflow}</button></p>`,
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
