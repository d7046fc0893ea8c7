#!/bin/sh
# Publishes a signed release to an app store with trusted publishing: no store token is stored
# anywhere. Needs only sh, tar, curl (7.55 or later) and openssl. Works in GitHub Actions
# (permissions: id-token: write) and in GitLab CI (an id_tokens: entry named APPSTORE_ID_TOKEN).
# See docs/trusted-publishing.md, or the store's API page.
#
#   STORE               the store's public URL, such as https://apps.example.org (also the audience)
#   ARCHIVE             the release archive (APP.tar.gz) to publish
#   APP_SIGNING_KEY     the app's code-signing key (PEM), from the CI's secrets; or
#   APP_SIGNING_KEY_FILE  a file holding it
#   NIGHTLY             true for a nightly release (default false)
#   APP                 the app id (default: the archive's top folder)
#   AUDIENCE            the audience to ask for, when the store is configured with another one
#
# Secrets (the ID token, the store's token, the key) go through files only readable by this job,
# never on a command line, where other processes of the machine could read them.
set -eu

: "${STORE:?set STORE to the store URL}"
: "${ARCHIVE:?set ARCHIVE to the archive to publish}"
STORE=${STORE%/}
AUDIENCE=${AUDIENCE:-$STORE}
NIGHTLY=${NIGHTLY:-false}

fail() {
  echo "publish-release: $*" >&2
  exit 1
}

# Everything that can be checked here is checked before the ID token is used up.
[ -f "$ARCHIVE" ] || fail "no archive at $ARCHIVE"
APP=${APP:-$(tar -tzf "$ARCHIVE" | head -n 1 | cut -d/ -f1)}
[ -n "$APP" ] || fail "$ARCHIVE has no top folder: is it a .tar.gz of the app?"
if [ -n "${APP_SIGNING_KEY_FILE:-}" ]; then
  [ -r "$APP_SIGNING_KEY_FILE" ] || fail "cannot read the signing key $APP_SIGNING_KEY_FILE"
else
  [ -n "${APP_SIGNING_KEY:-}" ] || fail "set APP_SIGNING_KEY (or APP_SIGNING_KEY_FILE) to the app's signing key"
fi

# A field of a flat JSON object (the answers here have no nested quotes in the fields read).
field() {
  sed -n "s/.*\"$1\" *: *\"\\([^\"]*\\)\".*/\\1/p"
}

WORK=$(umask 077 && mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 1. The CI job's ID token, minted for this store's audience.
if [ -n "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ]; then
  [ -n "${ACTIONS_ID_TOKEN_REQUEST_TOKEN:-}" ] || fail 'the workflow needs "permissions: id-token: write"'
  printf 'Authorization: bearer %s\n' "$ACTIONS_ID_TOKEN_REQUEST_TOKEN" > "$WORK/ci-auth"
  ID_TOKEN=$(curl -sS --fail -H @"$WORK/ci-auth" "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=$AUDIENCE" | field value)
elif [ -n "${APPSTORE_ID_TOKEN:-}" ]; then
  ID_TOKEN=$APPSTORE_ID_TOKEN
else
  fail 'no ID token: in GitHub Actions grant "id-token: write"; in GitLab CI add id_tokens: APPSTORE_ID_TOKEN'
fi
[ -n "$ID_TOKEN" ] || fail 'the CI gave no ID token'

# 2. The ID token for a token that can publish this app for 15 minutes.
printf '{"token":"%s","app":"%s"}' "$ID_TOKEN" "$APP" > "$WORK/exchange.json"
STATUS=$(curl -sS -o "$WORK/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data @"$WORK/exchange.json" "$STORE/api/v1/trusted-publishing/token")
[ "$STATUS" = 200 ] || fail "the store refused the ID token ($STATUS): $(cat "$WORK/answer")"
printf 'Authorization: Token %s\n' "$(field token < "$WORK/answer")" > "$WORK/store-auth"

# 3. The signature over the archive, with the app's key.
if [ -n "${APP_SIGNING_KEY_FILE:-}" ]; then
  KEY_FILE=$APP_SIGNING_KEY_FILE
else
  KEY_FILE=$WORK/key.pem
  printf '%s\n' "$APP_SIGNING_KEY" > "$KEY_FILE"
fi
openssl dgst -sha512 -sign "$KEY_FILE" "$ARCHIVE" | openssl base64 -A > "$WORK/signature"

# 4. The archive itself, uploaded: no web host needed.
STATUS=$(curl -sS -o "$WORK/answer" -w '%{http_code}' -H @"$WORK/store-auth" \
  -F "archive=@$ARCHIVE" -F "signature=<$WORK/signature" -F "nightly=$NIGHTLY" "$STORE/api/v1/apps/releases")
case $STATUS in
  201) echo "published $(basename "$ARCHIVE") (new release of $APP)" ;;
  200) echo "published $(basename "$ARCHIVE") (release of $APP updated)" ;;
  *) fail "the store refused the release ($STATUS): $(cat "$WORK/answer")" ;;
esac

# 5. The token is not needed any more: it revokes itself.
curl -sS -o /dev/null -X DELETE -H @"$WORK/store-auth" "$STORE/api/v1/token" || true
