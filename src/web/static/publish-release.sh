#!/bin/sh
# Publishes a signed release to an app store with trusted publishing: no store token is stored
# anywhere. Needs only sh, curl and openssl. Works in GitHub Actions (permissions: id-token: write)
# and in GitLab CI (an id_tokens: entry named APPSTORE_ID_TOKEN). See docs/trusted-publishing.md, or the store's API page.
#
#   STORE               the store's public URL, such as https://apps.example.org (also the audience)
#   ARCHIVE             the release archive (APP.tar.gz) to publish
#   APP_SIGNING_KEY     the app's code-signing key (PEM), from the CI's secrets; or
#   APP_SIGNING_KEY_FILE  a file holding it
#   NIGHTLY             true for a nightly release (default false)
#   APP                 the app id, only when several apps trust the same workflow
#   AUDIENCE            the audience to ask for, when the store is configured with another one
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

# A field of a flat JSON object (the answers here have no nested quotes in the fields read).
field() {
  sed -n "s/.*\"$1\" *: *\"\\([^\"]*\\)\".*/\\1/p"
}

# 1. The CI job's ID token, minted for this store's audience.
if [ -n "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ]; then
  [ -n "${ACTIONS_ID_TOKEN_REQUEST_TOKEN:-}" ] || fail 'the workflow needs "permissions: id-token: write"'
  ID_TOKEN=$(curl -sS --fail -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" \
    "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=$AUDIENCE" | field value)
elif [ -n "${APPSTORE_ID_TOKEN:-}" ]; then
  ID_TOKEN=$APPSTORE_ID_TOKEN
else
  fail 'no ID token: in GitHub Actions grant "id-token: write"; in GitLab CI add id_tokens: APPSTORE_ID_TOKEN'
fi
[ -n "$ID_TOKEN" ] || fail 'the CI gave no ID token'

# 2. The ID token for a token that can publish this app for 15 minutes.
BODY=$(mktemp)
trap 'rm -f "$BODY" "${KEY_FILE_TMP:-}"' EXIT
if [ -n "${APP:-}" ]; then REQUEST="{\"token\":\"$ID_TOKEN\",\"app\":\"$APP\"}"; else REQUEST="{\"token\":\"$ID_TOKEN\"}"; fi
STATUS=$(curl -sS -o "$BODY" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data "$REQUEST" "$STORE/api/v1/trusted-publishing/token")
[ "$STATUS" = 200 ] || fail "the store refused the ID token ($STATUS): $(cat "$BODY")"
TOKEN=$(field token < "$BODY")

# 3. The signature over the archive, with the app's key.
if [ -n "${APP_SIGNING_KEY_FILE:-}" ]; then
  KEY_FILE=$APP_SIGNING_KEY_FILE
else
  : "${APP_SIGNING_KEY:?set APP_SIGNING_KEY (or APP_SIGNING_KEY_FILE) to the app's signing key}"
  KEY_FILE_TMP=$(umask 077 && mktemp)
  printf '%s\n' "$APP_SIGNING_KEY" > "$KEY_FILE_TMP"
  KEY_FILE=$KEY_FILE_TMP
fi
SIGNATURE=$(openssl dgst -sha512 -sign "$KEY_FILE" "$ARCHIVE" | openssl base64 -A)

# 4. The archive itself, uploaded: no web host needed.
STATUS=$(curl -sS -o "$BODY" -w '%{http_code}' -H "Authorization: Token $TOKEN" \
  -F "archive=@$ARCHIVE" -F "signature=$SIGNATURE" -F "nightly=$NIGHTLY" "$STORE/api/v1/apps/releases")
case $STATUS in
  201) echo "published $(basename "$ARCHIVE") (new release)" ;;
  200) echo "published $(basename "$ARCHIVE") (release updated)" ;;
  *) fail "the store refused the release ($STATUS): $(cat "$BODY")" ;;
esac

# 5. The token is not needed any more: it revokes itself.
curl -sS -o /dev/null -X DELETE -H "Authorization: Token $TOKEN" "$STORE/api/v1/token" || true
