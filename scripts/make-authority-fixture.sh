#!/usr/bin/env bash
# Makes test/fixtures/authority with openssl: a store's own code-signing authority as an earlier
# version kept it in the data directory (ca/authority.crt, ca/authority.key): RSA 4,096, CA with
# path length 0, valid from 2020 for 100 years. Tests that start `appstore serve` without
# APPSTORE_CA_CERT put it there (test/helpers/serve-process.ts), and the store imports it instead
# of generating a key of its own (0.5 to 1.5 s of CPU each time); the tests of that generation
# opt out.
# Run from the repository root: scripts/make-authority-fixture.sh (rewrites the folder).
set -euo pipefail
out=test/fixtures/authority
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/new"
: >"$work/index.txt"
openssl rand -hex 16 >"$work/serial"
cat >"$work/ca.cnf" <<CNF
[ ca ]
default_ca = this
[ this ]
dir = $work
database = \$dir/index.txt
new_certs_dir = \$dir/new
serial = \$dir/serial
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = none
[ anything ]
commonName = supplied
[ authority ]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
CNF
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:4096 -out "$out/authority.key" 2>/dev/null
openssl req -new -key "$out/authority.key" -subj "/CN=Appstore Code Signing Authority (test, 2020-01-01, 00000000)" -out "$work/authority.csr"
openssl ca -batch -config "$work/ca.cnf" -selfsign -keyfile "$out/authority.key" -in "$work/authority.csr" \
  -startdate 20200101000000Z -enddate 21200101000000Z -extensions authority -notext -out "$out/authority.crt" 2>/dev/null
openssl verify -CAfile "$out/authority.crt" "$out/authority.crt" >/dev/null
echo "wrote $out/authority.crt and $out/authority.key"
