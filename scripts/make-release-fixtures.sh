#!/usr/bin/env bash
# Makes the release-reader fixtures: info.xml manifests (test/fixtures/manifests, one per rule)
# and app archives (test/fixtures/archives) with tar, gzip and, for members tar cannot make
# (absolute paths, '..', a 1 GiB bomb), python3's tarfile. Run from the repository root.
set -euo pipefail
m=test/fixtures/manifests
a=test/fixtures/archives
rm -rf "$m" "$a"
mkdir -p "$m" "$a"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- manifests -------------------------------------------------------------------------------
cat >"$m/minimal.xml" <<'XML'
<?xml version="1.0"?>
<info>
    <id>news</id>
    <name>News</name>
    <description>An RSS/Atom feed reader</description>
    <version>8.8.2</version>
    <licence>AGPL-3.0-or-later</licence>
    <author>Bernhard Posselt</author>
    <category>multimedia</category>
    <bugs>https://github.com/nextcloud/news/issues</bugs>
    <dependencies>
        <nextcloud min-version="31" max-version="32"/>
    </dependencies>
</info>
XML

cat >"$m/full.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<info xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
      xsi:noNamespaceSchemaLocation="https://apps.nextcloud.com/schema/apps/info.xsd">
    <id>news</id>
    <name>News</name>
    <name lang="de">Nachrichten</name>
    <summary>An RSS/Atom feed reader</summary>
    <description><![CDATA[#This is markdown]]></description>
    <description lang="de">Ein RSS-Reader</description>
    <version>8.8.2</version>
    <licence>agpl</licence>
    <author mail="mail@provider.com" homepage="http://example.com">Bernhard Posselt</author>
    <author>Alessandro Cosentino</author>
    <author>Jan-Christoph Borchardt</author>
    <namespace>News</namespace>
    <documentation>
        <user>https://github.com/owncloud/news/wiki#user-documentation</user>
        <admin>https://github.com/owncloud/news#readme</admin>
        <developer>https://github.com/owncloud/news/wiki#developer-documentation</developer>
    </documentation>
    <category>multimedia</category>
    <category>tools</category>
    <website>https://github.com/owncloud/news</website>
    <discussion>https://help.nextcloud.com/c/apps/news</discussion>
    <bugs>https://github.com/owncloud/news/issues</bugs>
    <repository type="git">https://github.com/owncloud/news.git</repository>
    <screenshot small-thumbnail="https://example.com/1-thumb.png">https://example.com/1.png</screenshot>
    <screenshot>https://example.com/2.jpg</screenshot>
    <dependencies>
        <php min-version="5.6" min-int-size="64"/>
        <database min-version="9.4">pgsql</database>
        <database>sqlite</database>
        <database min-version="5.5">mysql</database>
        <command>grep</command>
        <command>ls</command>
        <lib min-version="2.7.8">libxml</lib>
        <lib>curl</lib>
        <lib>SimpleXML</lib>
        <lib>iconv</lib>
        <owncloud min-version="10" max-version="9"/>
        <nextcloud min-version="9" max-version="10"/>
    </dependencies>
    <background-jobs>
        <job>OCA\News\Cron\Updater</job>
    </background-jobs>
    <repair-steps>
        <post-migration>
            <step>OCA\News\Migration\MigrateStatusFlags</step>
        </post-migration>
    </repair-steps>
    <navigations>
        <navigation role="all">
            <name>News</name>
            <route>news.page.index</route>
            <type>link</type>
        </navigation>
    </navigations>
    <unknown-element>is ignored</unknown-element>
</info>
XML

variant() { # name sed-expression...: minimal.xml edited
  local name=$1
  shift
  sed "$@" "$m/minimal.xml" >"$m/$name.xml"
}
variant prerelease -e 's|<version>8.8.2</version>|<version>1.0.0-alpha.1</version>|'
variant digit-id -e 's|<id>news</id>|<id>twofactor_u2f</id>|'
variant four-part-version -e 's|<version>8.8.2</version>|<version>0.1.4.1</version>|'
variant build-metadata -e 's|<version>8.8.2</version>|<version>1.0.0+20240101</version>|'
variant long-id -e 's|<id>news</id>|<id>skynettechnologiesallinoneaccessibility</id>|'
variant bad-id -e 's|<id>news</id>|<id>News-App</id>|'
variant no-id -e '/<id>/d'
variant two-ids -e 's|<id>news</id>|<id>news</id><id>notes</id>|'
variant no-en-name -e 's|<name>News</name>|<name lang="de">Nachrichten</name>|'
variant no-en-description -e 's|<description>|<description lang="de">|'
variant no-en-summary -e 's|<name>News</name>|<name>News</name><summary lang="de">Ein Reader</summary>|'
variant duplicate-lang -e 's|<name>News</name>|<name>News</name><name lang="en">Other</name>|'
variant empty-name -e 's|<name>News</name>|<name>  </name>|'
variant long-name -e "s|<name>News</name>|<name>$(printf 'x%.0s' $(seq 1 129))</name>|"
variant partial-translations -e 's|<description>An RSS/Atom feed reader</description>|<description>An RSS/Atom feed reader</description><description lang="de">Ein RSS-Reader</description>|'
variant no-licence -e '/<licence>/d'
variant unknown-licence -e 's|<licence>AGPL-3.0-or-later</licence>|<licence>AGPLv3</licence>|'
variant license-spelling -e 's|<licence>AGPL-3.0-or-later</licence>|<license>AGPL-3.0-or-later</license>|'
variant alias-licences -e 's|<licence>AGPL-3.0-or-later</licence>|<licence>AGPL</licence><licence>apache</licence><licence>mit</licence><licence>mpl</licence>|'
variant no-author -e '/<author>/d'
variant bad-author-mail -e 's|<author>|<author mail="not-an-address">|'
variant no-bugs -e '/<bugs>/d'
variant http-bugs -e 's|<bugs>https://|<bugs>ftp://|'
variant no-category -e '/<category>/d'
variant auth-category -e 's|<category>multimedia</category>|<category>auth</category>|'
variant unknown-category -e 's|<category>multimedia</category>|<category>productivity</category>|'
variant duplicate-category -e 's|<category>multimedia</category>|<category>tools</category><category>tools</category>|'
variant doc-ids -e 's|<bugs>|<documentation><user>user-test</user><admin>admin-guide</admin><developer>developer-api</developer></documentation><bugs>|'
variant switched-doc-ids -e 's|<bugs>|<documentation><user>admin-test</user><admin>user-test</admin></documentation><bugs>|'
variant http-docs -e 's|<bugs>|<documentation><user>http://example.com/docs</user></documentation><bugs>|'
shots=$(for i in $(seq 1 11); do printf '<screenshot>https://example.com/%s.png</screenshot>' "$i"; done)
variant eleven-screenshots -e "s|<bugs>|$shots<bugs>|"
variant http-screenshot -e 's|<bugs>|<screenshot>http://example.com/1.png</screenshot><bugs>|'
variant http-thumbnail -e 's|<bugs>|<screenshot small-thumbnail="http://example.com/t.png">https://example.com/1.png</screenshot><bugs>|'
variant no-dependencies -e '/dependencies>/d' -e '/<nextcloud/d'
variant no-nextcloud -e 's|<nextcloud min-version="31" max-version="32"/>|<php min-version="8.1"/>|'
variant nextcloud-no-max -e 's| max-version="32"||'
variant nextcloud-four-parts -e 's|min-version="31"|min-version="31.0.0.1"|'
variant nextcloud-text-version -e 's|max-version="32"|max-version="latest"|'
variant nextcloud-min-above-max -e 's|min-version="31" max-version="32"|min-version="32" max-version="31"|'
variant nextcloud-patch-levels -e 's|min-version="31" max-version="32"|min-version="9.0.1" max-version="9.0.5"|'
variant php-bad-int-size -e 's|<nextcloud|<php min-int-size="16"/><nextcloud|'
variant php-max-only -e 's|<nextcloud|<php max-version="7.1"/><nextcloud|'
variant bad-database -e 's|<nextcloud|<database>oracle</database><nextcloud|'
variant bad-command -e 's|<nextcloud|<command>rm -rf</command><nextcloud|'
variant bad-job -e 's|</info>|<background-jobs><job>OCA\\News\\Cron Updater</job></background-jobs></info>|'
variant bad-route -e 's|</info>|<navigations><navigation><name>N</name><route>news.index</route></navigation></navigations></info>|'
variant deprecated -e 's|<bugs>|<shipped>true</shipped><standalone/><bugs>|'
# ExApps (AppAPI): the original's AppAPI import cases, minimal and full, and one per rule.
docker='<docker-install><registry>ghcr.io</registry><image>cloud-py-api/skeleton</image><image-tag>latest</image-tag></docker-install>'
variant exapp-minimal -e "s|</info>|<external-app>$docker<scopes></scopes></external-app></info>|"
variant exapp-no-docker -e 's|</info>|<external-app><scopes><value>FILES</value></scopes></external-app></info>|'
variant exapp-bad-image -e 's|</info>|<external-app><docker-install><registry>ghcr.io</registry><image>Cloud-Py-Api/Skeleton</image><image-tag>1.0</image-tag></docker-install></external-app></info>|'
variant exapp-no-tag -e 's|</info>|<external-app><docker-install><registry>ghcr.io</registry><image>x/y</image></docker-install></external-app></info>|'
variant exapp-old-scopes -e "s|</info>|<external-app>$docker<scopes><required><value>FILES</value></required></scopes></external-app></info>|"
variant exapp-bad-scope -e "s|</info>|<external-app>$docker<scopes><value>files</value><value>TALK</value><value>TALK</value></scopes></external-app></info>|"
variant exapp-bad-system -e "s|</info>|<external-app>$docker<system>yes</system></external-app></info>|"
variant exapp-bad-variable -e "s|</info>|<external-app>$docker<environment-variables><variable><display-name>No name</display-name></variable><variable><name>2FA</name><display-name>x</display-name></variable></environment-variables></external-app></info>|"
variant exapp-twice -e "s|</info>|<external-app>$docker</external-app><external-app>$docker</external-app></info>|"
cat >"$m/exapp-full.xml" <<'XML'
<?xml version="1.0"?>
<info xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
    <id>aa_skeleton</id>
    <name>AppAPI Skeleton2</name>
    <description>Testing info.xml</description>
    <version>2.0.0</version>
    <licence>AGPL-3.0-or-later</licence>
    <author>Andrey Borysenko</author>
    <category>tools</category>
    <bugs>https://github.com/cloud-py-api/nc_py_api/issues</bugs>
    <dependencies>
        <nextcloud min-version="31" max-version="31"/>
    </dependencies>
    <documentation>
        <developer>https://cloud-py-api.github.io/nc_py_api/</developer>
    </documentation>
    <website>https://github.com/cloud-py-api/nc_py_api</website>
    <discussion>https://github.com/cloud-py-api/nc_py_api/discussions</discussion>
    <external-app>
        <docker-install>
            <registry>ghcr.io</registry>
            <image>cloud-py-api/skeleton</image>
            <image-tag>1.0.0</image-tag>
        </docker-install>
        <scopes>
            <value>FILES</value>
            <value>NOTIFICATIONS</value>
            <value>TALK</value>
        </scopes>
        <system>true</system>
        <routes>
            <route>
                <url>api\/.*</url>
                <verb>GET,POST</verb>
                <access_level>USER</access_level>
                <headers_to_exclude>[]</headers_to_exclude>
            </route>
        </routes>
        <environment-variables>
            <variable>
                <name>SOME_VALUE1</name>
                <display-name>Display name 1</display-name>
                <description>Some useful description of it</description>
            </variable>
            <variable>
                <name>SOME_VALUE2</name>
                <display-name>Display name 2</display-name>
                <description>Example of second variable with the 'default' value</description>
                <default>0</default>
            </variable>
        </environment-variables>
    </external-app>
</info>
XML
variant not-info-root -e 's|<info>|<app>|' -e 's|</info>|</app>|'
variant broken -e 's|</name>|</nam>|'
variant latin1-declared -e 's|<?xml version="1.0"?>|<?xml version="1.0" encoding="ISO-8859-1"?>|'
printf '<?xml version="1.0"?>\n<info><id>news</id><name>Caf\xe9</name></info>\n' >"$m/invalid-utf8.xml"
cat >"$m/billion-laughs.xml" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE info [
  <!ENTITY a "lollollollollollollollollollol">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
  <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
  <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
  <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
  <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
  <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
  <!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">
]>
<info><id>news</id><name>&i;</name></info>
XML
cat >"$m/external-entity.xml" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE info [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
<info><id>news</id><name>&secret;</name></info>
XML
sed 's|<name>News</name>|<name>\&undefined;</name>|' "$m/minimal.xml" >"$m/undefined-entity.xml"

# --- archives --------------------------------------------------------------------------------
app_tree() { # dir app-folder manifest
  mkdir -p "$1/$2/appinfo" "$1/$2/lib"
  cp "$3" "$1/$2/appinfo/info.xml"
  printf '<?php\n// app code\n' >"$1/$2/lib/Application.php"
}
targz() { # archive dir members... (sorted names, fixed owner and time: reproducible bytes)
  local out=$1 dir=$2
  shift 2
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2024-01-01 00:00Z' -C "$dir" -cf - "$@" | gzip -n -9 >"$out"
}

t="$work/valid"
app_tree "$t" news "$m/full.xml"
cat >"$t/news/CHANGELOG.md" <<'MD'
# Changelog
## [Unreleased]
- next things

## 8.8.2 – 2016-05-20
### Fixed
- the feed parser

## 8.8.1
- older
MD
printf '## 8.8.2\n- Parser repariert\n' >"$t/news/CHANGELOG.de.md"
printf '## 9.9.9\n- nothing for this version\n' >"$t/news/CHANGELOG.fr.md"
targz "$a/valid.tar.gz" "$t" news
(cd "$t" && tar --owner=0 --group=0 -cf - ./news | gzip -n >"$OLDPWD/$a/dot-slash.tar.gz")
tar --owner=0 --group=0 -C "$t" -cf "$a/plain.tar.gz" news
printf 'PK\005\006\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$a/empty.zip.tar.gz"
head -c 2048 /dev/urandom >"$a/garbage.tar.gz"
head -c 600 "$a/valid.tar.gz" >"$a/truncated.tar.gz"
printf 'just some text, gzipped\n' | gzip -n >"$a/gzip-not-tar.tar.gz"

t="$work/minimal"
app_tree "$t" news "$m/minimal.xml"
targz "$a/minimal.tar.gz" "$t" news

t="$work/two"
app_tree "$t" news "$m/minimal.xml"
app_tree "$t" notes "$m/minimal.xml"
targz "$a/two-folders.tar.gz" "$t" news notes

t="$work/topfile"
app_tree "$t" news "$m/minimal.xml"
printf 'read me\n' >"$t/README"
targz "$a/top-level-file.tar.gz" "$t" news README

t="$work/upper"
app_tree "$t" News "$m/minimal.xml"
targz "$a/uppercase-folder.tar.gz" "$t" News

t="$work/mismatch"
app_tree "$t" notes "$m/minimal.xml"
targz "$a/folder-id-mismatch.tar.gz" "$t" notes

t="$work/noinfo"
mkdir -p "$t/news/lib"
printf '<?php\n' >"$t/news/lib/a.php"
targz "$a/no-info-xml.tar.gz" "$t" news

t="$work/git"
app_tree "$t" news "$m/minimal.xml"
mkdir -p "$t/news/.git"
printf '[core]\n' >"$t/news/.git/config"
targz "$a/git-directory.tar.gz" "$t" news

t="$work/symlink"
app_tree "$t" news "$m/minimal.xml"
mv "$t/news/appinfo/info.xml" "$t/real-info.xml"
ln -s ../../real-info.xml "$t/news/appinfo/info.xml"
targz "$a/symlink-info-xml.tar.gz" "$t" news

t="$work/symlinkdir"
app_tree "$t" elsewhere "$m/minimal.xml"
mkdir -p "$t/news"
ln -s ../elsewhere/appinfo "$t/news/appinfo"
targz "$a/symlink-appinfo.tar.gz" "$t" news

t="$work/hardlink"
app_tree "$t" news "$m/minimal.xml"
ln "$t/news/appinfo/info.xml" "$t/news/info-copy.xml"
targz "$a/hardlink.tar.gz" "$t" news

t="$work/fifo"
app_tree "$t" news "$m/minimal.xml"
mkfifo "$t/news/pipe"
targz "$a/fifo.tar.gz" "$t" news

t="$work/big"
app_tree "$t" news "$m/minimal.xml"
{ head -n -1 "$m/minimal.xml"; printf '<!-- %s -->\n' "$(head -c 530000 /dev/zero | tr '\0' 'x')"; printf '</info>\n'; } >"$t/news/appinfo/info.xml"
targz "$a/info-xml-too-large.tar.gz" "$t" news

t="$work/bigchangelog"
app_tree "$t" news "$m/minimal.xml"
head -c 1048577 /dev/zero | tr '\0' 'x' >"$t/news/CHANGELOG.md"
targz "$a/changelog-too-large.tar.gz" "$t" news

t="$work/badchangelog"
app_tree "$t" news "$m/minimal.xml"
printf '## 8.8.2\n- caf\xe9\n' >"$t/news/CHANGELOG.md"
targz "$a/changelog-not-utf8.tar.gz" "$t" news

t="$work/laughs"
app_tree "$t" news "$m/billion-laughs.xml"
targz "$a/billion-laughs.tar.gz" "$t" news

# Members tar will not write as such, made with python's tarfile.
python3 - "$a" "$m/minimal.xml" <<'PY'
import gzip, io, sys, tarfile

out, manifest = sys.argv[1], open(sys.argv[2], 'rb').read()

def member(tar, name, data=b'', kind=tarfile.REGTYPE, linkname=''):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mtime, info.mode = kind, linkname, 1704067200, 0o644
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)

def archive(name, members, **options):
    with gzip.GzipFile(f'{out}/{name}', 'wb', mtime=0) as gz, tarfile.open(fileobj=gz, mode='w', **options) as tar:
        for m in members:
            member(tar, *m)

ok = [('news/', b'', tarfile.DIRTYPE), ('news/appinfo/info.xml', manifest)]
archive('absolute-path.tar.gz', ok + [('/etc/news-evil', b'x')])
archive('dot-dot.tar.gz', ok + [('news/../../evil', b'x')])
archive('device.tar.gz', ok + [('news/null', b'', tarfile.CHRTYPE)])
archive('duplicate-info-xml.tar.gz', ok + [('news/appinfo/info.xml', manifest)])
archive('pax-global-header.tar.gz', ok, format=tarfile.PAX_FORMAT, pax_headers={'comment': 'made by git archive'})

class Zeros(io.RawIOBase):
    def __init__(self, size): self.left = size
    def readable(self): return True
    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n

# A decompression bomb: 1 GiB of zeros in one member, about 1 MiB compressed.
with gzip.GzipFile(f'{out}/bomb-1gib.tar.gz', 'wb', mtime=0, compresslevel=9) as gz, tarfile.open(fileobj=gz, mode='w') as tar:
    info = tarfile.TarInfo('news/zeros')
    info.size = 1 << 30
    tar.addfile(info, io.BufferedReader(Zeros(info.size), 1 << 20))

# A 100 MB info.xml (a comment of x's), about 100 KiB compressed.
with gzip.GzipFile(f'{out}/info-xml-100mb.tar.gz', 'wb', mtime=0, compresslevel=9) as gz, tarfile.open(fileobj=gz, mode='w') as tar:
    body = manifest.replace(b'</info>', b'<!--' + b'x' * (100 * 1000 * 1000) + b'--></info>')
    member(tar, 'news/appinfo/info.xml', body)
PY
echo "release fixtures written to $m and $a"
