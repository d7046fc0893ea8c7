#!/usr/bin/env bash
# Makes test/fixtures/tls: a test CA and a server certificate for localhost / 127.0.0.1 / ::1
# signed by it (the local HTTPS archive server of the tests), and a self-signed one nobody trusts.
set -euo pipefail
out=test/fixtures/tls
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 9000 -subj '/CN=Appstore Test TLS CA' \
  -addext 'basicConstraints=critical,CA:true' -addext 'keyUsage=critical,keyCertSign' \
  -keyout "$out/ca.key" -out "$out/ca.crt" 2>/dev/null
openssl req -new -newkey rsa:2048 -nodes -subj '/CN=localhost' -keyout "$out/server.key" -out "$work/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:false\nextendedKeyUsage=serverAuth\n' >"$work/ext.cnf"
openssl x509 -req -in "$work/server.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" -CAcreateserial -days 9000 -sha256 \
  -extfile "$work/ext.cnf" -out "$out/server.crt" 2>/dev/null
rm -f "$out/ca.srl"
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 9000 -subj '/CN=localhost' \
  -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' -keyout "$out/untrusted.key" -out "$out/untrusted.crt" 2>/dev/null
echo "TLS fixtures written to $out"
