#!/usr/bin/env bash
# Makes the certificate fixtures of test/fixtures/certificates with openssl: a test root and
# intermediate authority, another authority, app certificates (valid, expired, not yet valid,
# signed by the other authority, revoked, bad CNs), CRLs (empty, revoking, signed by the other
# authority, stale; older, newer and the root's by scripts/make-crl-fixtures.sh), signatures (good, wrapped, bad, over another id) and CSRs.
# Run from the repository root: scripts/make-certificate-fixtures.sh (rewrites the folder).
set -euo pipefail
out=test/fixtures/certificates
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One `openssl ca` configuration per authority, so that dates, serials and CRLs are ours to set.
make_ca_config() { # name
  local name=$1 dir="$work/$1"
  mkdir -p "$dir/new"
  : >"$dir/index.txt"
  echo 1000 >"$dir/serial"
  echo 1000 >"$dir/crlnumber"
  cat >"$dir/ca.cnf" <<CNF
[ ca ]
default_ca = this
[ this ]
dir = $dir
database = \$dir/index.txt
new_certs_dir = \$dir/new
serial = \$dir/serial
crlnumber = \$dir/crlnumber
certificate = $out/$name.crt
private_key = $out/$name.key
default_md = sha256
policy = anything
copy_extensions = none
unique_subject = no
default_crl_days = 3650
[ anything ]
commonName = supplied
[ intermediate_ext ]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ app_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF
}

self_signed_ca() { # name CN
  openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 9000 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$out/$1.key" -out "$out/$1.crt" 2>/dev/null
  make_ca_config "$1"
}

sign() { # ca csr out extension startdate enddate
  openssl ca -batch -notext -config "$work/$1/ca.cnf" -in "$2" -out "$3" -extensions "$4" \
    -startdate "$5" -enddate "$6" >/dev/null 2>&1
}

app_cert() { # ca file-name CN startdate enddate [key-name]
  local key=${6:-$2}
  [ -f "$out/$key.key" ] || openssl genrsa -out "$out/$key.key" 2048 2>/dev/null
  openssl req -new -key "$out/$key.key" -subj "/CN=$3" -out "$work/$2.csr"
  sign "$1" "$work/$2.csr" "$out/$2.crt" app_ext "$4" "$5"
}

self_signed_ca root 'Appstore Test Root Authority'
self_signed_ca other-root 'Some Other Authority'

openssl genrsa -out "$out/intermediate.key" 2048 2>/dev/null
openssl req -new -key "$out/intermediate.key" -subj '/CN=Appstore Test Code Signing Intermediate' -out "$work/intermediate.csr"
sign root "$work/intermediate.csr" "$out/intermediate.crt" intermediate_ext 20200101000000Z 20450101000000Z
make_ca_config intermediate
cat "$out/intermediate.crt" "$out/root.crt" >"$out/chain.pem"

valid_from=20200101000000Z
valid_to=20450101000000Z
app_cert intermediate news news $valid_from $valid_to
app_cert intermediate news-2 news $valid_from $valid_to
app_cert intermediate notes notes $valid_from $valid_to
app_cert intermediate mail-revoked mail $valid_from $valid_to
app_cert intermediate news-expired news 20150101000000Z 20160101000000Z news
app_cert intermediate news-not-yet-valid news 20400101000000Z 20500101000000Z news
app_cert other-root news-other-authority news $valid_from $valid_to news
app_cert intermediate bad-cn 'My-App' $valid_from $valid_to
app_cert intermediate slash-cn '\/news' $valid_from $valid_to
app_cert intermediate long-cn 'a_very_long_app_id_of_33_chars_xx' $valid_from $valid_to

# Two certificates in one file: refused (exactly one is expected).
cat "$out/news.crt" "$out/notes.crt" >"$out/two-certificates.pem"

crl() { # ca out lastupdate nextupdate
  openssl ca -batch -config "$work/$1/ca.cnf" -gencrl -crl_lastupdate "$3" -crl_nextupdate "$4" -out "$2" >/dev/null 2>&1
}
crl intermediate "$out/empty.crl" 20240101000000Z 20440101000000Z
openssl ca -batch -config "$work/intermediate/ca.cnf" -revoke "$out/mail-revoked.crt" -crl_reason keyCompromise >/dev/null 2>&1
crl intermediate "$out/revoking.crl" 20240101000000Z 20440101000000Z
crl intermediate "$out/stale.crl" 20190101000000Z 20200101000000Z
# The other authority revokes its serial 1000, which is also news.crt's serial at our
# intermediate: a validator that applied this CRL to our certificates would refuse news.crt.
openssl ca -batch -config "$work/other-root/ca.cnf" -revoke "$out/news-other-authority.crt" >/dev/null 2>&1
crl other-root "$out/other-authority.crl" 20240101000000Z 20440101000000Z
# CRLs that replace another: older, newer, the root's own.
scripts/make-crl-fixtures.sh

sig() { # key data out [wrap]
  if [ "${4:-}" = wrap ]; then
    printf '%s' "$2" | openssl dgst -sha512 -sign "$out/$1.key" | openssl base64 >"$out/$3"
  else
    printf '%s' "$2" | openssl dgst -sha512 -sign "$out/$1.key" | openssl base64 -A >"$out/$3"
  fi
}
sig news news news.sig
sig news news news-wrapped.sig wrap
sig news-2 news news-2.sig
sig notes notes notes.sig
sig notes news news-by-notes-key.sig
sig news notes notes-by-news-key.sig
sig mail-revoked mail mail-revoked.sig
sig bad-cn My-App bad-cn.sig
openssl rand 256 | openssl base64 -A >"$out/garbage.sig"

# Certificate requests for `appstore ca issue`.
openssl req -new -key "$out/notes.key" -subj '/CN=notes' -out "$out/notes.csr"
openssl req -new -key "$out/bad-cn.key" -subj '/CN=Bad App' -out "$out/bad-cn.csr"
echo "certificate fixtures written to $out"
