#!/usr/bin/env bash
# Makes the CRLs of test/fixtures/certificates that test a CRL file replacing another, with the
# authorities' keys already there (scripts/make-certificate-fixtures.sh runs this at its end):
#   older.crl      the intermediate's, revoking mail-revoked.crt, issued 2023 (before revoking.crl)
#   newer.crl      the intermediate's, revoking mail-revoked.crt, issued 2025 (after revoking.crl)
#   root-only.crl  the root's, revoking nothing
# Their CRL numbers start at 5000, above those of the other CRLs.
# Run from the repository root: scripts/make-crl-fixtures.sh
set -euo pipefail
out=test/fixtures/certificates
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ca_dir() { # name
  local dir="$work/$1"
  mkdir -p "$dir"
  : >"$dir/index.txt"
  echo 5000 >"$dir/crlnumber"
  cat >"$dir/ca.cnf" <<CNF
[ ca ]
default_ca = this
[ this ]
dir = $dir
database = \$dir/index.txt
crlnumber = \$dir/crlnumber
certificate = $out/$1.crt
private_key = $out/$1.key
default_md = sha256
CNF
}

crl() { # ca out lastupdate nextupdate
  openssl ca -batch -config "$work/$1/ca.cnf" -gencrl -crl_lastupdate "$3" -crl_nextupdate "$4" -out "$2" >/dev/null 2>&1
}

ca_dir intermediate
openssl ca -batch -config "$work/intermediate/ca.cnf" -revoke "$out/mail-revoked.crt" -crl_reason keyCompromise >/dev/null 2>&1
crl intermediate "$out/older.crl" 20230101000000Z 20430101000000Z
crl intermediate "$out/newer.crl" 20250101000000Z 20450101000000Z
ca_dir root
crl root "$out/root-only.crl" 20240101000000Z 20440101000000Z
