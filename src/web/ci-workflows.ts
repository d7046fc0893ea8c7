/**
 * The CI files of trusted publishing (issue 53), for the API page and docs/trusted-publishing.md
 * (a test keeps the two the same): a GitHub Actions workflow and a GitLab CI job that build the
 * archive, sign it and publish it with publish-release.sh, with no store token stored anywhere.
 * Only the app's code-signing key is a CI secret: the store never sees it.
 */
export function githubWorkflow(store: string, app: string): string {
  return `# .github/workflows/release.yml
name: Release
on:
  push:
    tags: ['v*']
permissions:
  contents: read
  id-token: write # the ID token that trusted publishing exchanges
jobs:
  publish:
    runs-on: ubuntu-latest
    environment: release # optional: name the same environment on the store
    steps:
      - uses: actions/checkout@v4
      - name: Build the archive
        run: git archive --format=tar.gz --prefix=${app}/ -o ${app}.tar.gz HEAD
      - name: Sign and publish
        env:
          STORE: ${store}
          ARCHIVE: ${app}.tar.gz
          APP_SIGNING_KEY: \${{ secrets.APP_SIGNING_KEY }}
        run: sh .github/publish-release.sh
`;
}

export function gitlabJob(store: string, app: string): string {
  return `# .gitlab-ci.yml
publish:
  stage: deploy
  image: alpine:3.20
  rules:
    - if: $CI_COMMIT_TAG
  environment: production # optional: name the same environment on the store
  id_tokens:
    APPSTORE_ID_TOKEN:
      aud: ${store}
  before_script:
    - apk add --no-cache curl git openssl
  script:
    - git archive --format=tar.gz --prefix=${app}/ -o ${app}.tar.gz HEAD
    # APP_SIGNING_KEY: a masked, protected CI/CD variable holding the app's key
    - STORE=${store} ARCHIVE=${app}.tar.gz sh ci/publish-release.sh
`;
}
