#!/usr/bin/env bash
# Makes test/fixtures/weak-keys with openssl (issue 49): keys the store refuses to certify or
# register, each with a certificate request (CN weakapp) and a certificate for it signed by the
# test intermediate authority of test/fixtures/certificates (as a careless authority would), and
# the signature of the app id with the key:
#   rsa-1024   a 1,024-bit RSA key        rsa-768  a 768-bit RSA key
#   rsa-e3     a 2,048-bit key, exponent 3
#   rsa-pss    an RSA-PSS key (a request only: no certificate)
# Run from the repository root: scripts/make-weak-key-fixtures.sh (rewrites the folder).
set -euo pipefail
out=test/fixtures/weak-keys
authority=test/fixtures/certificates
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# `openssl ca`, so that the validity starts in 2020 like the other fixtures' (tests move the clock).
mkdir -p "$work/new"
: >"$work/index.txt"
openssl rand -hex 8 >"$work/serial"
cat >"$work/ca.cnf" <<CNF
[ ca ]
default_ca = this
[ this ]
dir = $work
database = \$dir/index.txt
new_certs_dir = \$dir/new
serial = \$dir/serial
certificate = $authority/intermediate.crt
private_key = $authority/intermediate.key
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = none
[ anything ]
commonName = supplied
[ app_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
CNF

weak() { # name genpkey-options...
  local name=$1
  shift
  openssl genpkey "$@" -out "$out/$name.key" 2>/dev/null
  openssl req -new -key "$out/$name.key" -subj '/CN=weakapp' -out "$out/$name.csr"
}
certify() { # name
  openssl ca -batch -notext -config "$work/ca.cnf" -in "$out/$1.csr" -out "$out/$1.crt" -extensions app_ext \
    -startdate 20200101000000Z -enddate 20450101000000Z >/dev/null 2>&1
  printf '%s' weakapp | openssl dgst -sha512 -sign "$out/$1.key" | openssl base64 -A >"$out/$1.sig"
}

weak rsa-768 -algorithm RSA -pkeyopt rsa_keygen_bits:768
weak rsa-1024 -algorithm RSA -pkeyopt rsa_keygen_bits:1024
weak rsa-e3 -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_pubexp:3
weak rsa-pss -algorithm RSA-PSS -pkeyopt rsa_keygen_bits:2048
for name in rsa-768 rsa-1024 rsa-e3; do certify "$name"; done
echo "weak-key fixtures written to $out"
