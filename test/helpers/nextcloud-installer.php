<?php
// A Nextcloud server installing or updating an app from a store, step by step as its
// lib/private/Installer.php does (../shared/reference/real-clients.md, A7 and A8), written for the
// tests in PHP's own functions: the listing read with curl as Guzzle does (CURLOPT_ENCODING), the
// app's certificate checked against root.crt and its CRL, its CN, the archive downloaded with
// redirects followed, the RSA-SHA512 signature checked over its exact bytes, extracted (one
// top-level folder), info.xml's id and version checked (no downgrades), apps/<id> replaced.
//
//   php nextcloud-installer.php install|update-available STORE_API_URL APP_ID ROOT_CRT ROOT_CRL APPS_DIR
//
// Prints one line (installed ID VERSION, or yes/no) and exits 0, or prints the refusal and exits 1.
declare(strict_types=1);

if ($argc !== 7) {
    fwrite(STDERR, "usage: php nextcloud-installer.php install|update-available STORE_API_URL APP_ID ROOT_CRT ROOT_CRL APPS_DIR\n");
    exit(2);
}
[, $command, $store, $appId, $rootFile, $crlFile, $appsDir] = $argv;

function refuse(string $message): never
{
    fwrite(STDERR, $message . "\n");
    exit(1);
}

/** GET with redirects followed and any compression accepted; returns the body of a 200. */
function fetch(string $url): string
{
    $curl = curl_init($url);
    curl_setopt_array($curl, [
        CURLOPT_RETURNTRANSFER => true,
        CURLOPT_FOLLOWLOCATION => true,
        CURLOPT_MAXREDIRS => 10,
        CURLOPT_ENCODING => '',
        CURLOPT_TIMEOUT => 120,
        CURLOPT_USERAGENT => 'Nextcloud Server Crawler',
    ]);
    $body = curl_exec($curl);
    if ($body === false) {
        refuse("could not download $url: " . curl_error($curl));
    }
    $status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
    if ($status !== 200) {
        refuse("could not download $url: HTTP $status");
    }
    return $body;
}

function installedVersion(string $appsDir, string $appId): ?string
{
    $file = "$appsDir/$appId/appinfo/info.xml";
    if (!is_file($file)) {
        return null;
    }
    $xml = simplexml_load_file($file);
    return $xml === false ? null : (string) $xml->version;
}

// The app as the listing shows it, its releases newest first (nightlies are not installed).
$apps = json_decode(fetch("$store/apps.json"), true, 512, JSON_THROW_ON_ERROR);
$app = null;
foreach ($apps as $candidate) {
    if ($candidate['id'] === strtolower($appId)) {
        $app = $candidate;
    }
}
if ($app === null) {
    refuse("the store lists no app $appId");
}
$releases = array_values(array_filter($app['releases'], fn (array $r): bool => !$r['isNightly']));
usort($releases, fn (array $a, array $b): int => version_compare($b['version'], $a['version']));
if ($releases === []) {
    refuse("the store lists no release of $appId");
}
$release = $releases[0];
$installed = installedVersion($appsDir, $appId);

if ($command === 'update-available') {
    echo ($installed !== null && version_compare($release['version'], $installed, '>')) ? "yes\n" : "no\n";
    exit(0);
}
if ($command !== 'install') {
    refuse("unknown command $command");
}

// The certificate: issued by an authority of root.crt, not revoked by its CRL, CN the app id.
$certificate = openssl_x509_read($app['certificate']);
if ($certificate === false) {
    refuse("the certificate of $appId cannot be read");
}
preg_match_all('/-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----/s', file_get_contents($rootFile), $authorities);
$issued = false;
foreach ($authorities[0] as $authority) {
    if (openssl_x509_verify($certificate, openssl_pkey_get_public($authority)) === 1) {
        $issued = true;
    }
}
if (!$issued) {
    refuse("App with id $appId has a certificate which is not issued by a trusted Code Signing Authority");
}
exec('openssl crl -in ' . escapeshellarg($crlFile) . ' -CAfile ' . escapeshellarg($rootFile) . ' -noout 2>&1', $crlCheck, $crlStatus);
if ($crlStatus !== 0 || !in_array('verify OK', $crlCheck, true)) {
    refuse('Could not validate CRL signature');
}
exec('openssl crl -in ' . escapeshellarg($crlFile) . ' -noout -text', $crlText);
$parsed = openssl_x509_parse($certificate);
$serial = ltrim(strtoupper($parsed['serialNumberHex']), '0');
foreach ($crlText as $line) {
    if (preg_match('/^\s*Serial Number: ([0-9A-Fa-f]+)/', $line, $match) === 1 && ltrim(strtoupper($match[1]), '0') === $serial) {
        refuse("Certificate \"$serial\" has been revoked");
    }
}
if (($parsed['subject']['CN'] ?? null) !== $appId) {
    refuse("App with id $appId has a cert issued to " . ($parsed['subject']['CN'] ?? 'nobody'));
}

// The archive: downloaded, its signature checked over the exact bytes.
$bytes = fetch($release['download']);
if (openssl_verify($bytes, base64_decode($release['signature']), openssl_pkey_get_public($certificate), OPENSSL_ALGO_SHA512) !== 1) {
    refuse("App with id $appId has invalid signature");
}
$work = sys_get_temp_dir() . '/nextcloud-installer-' . bin2hex(random_bytes(6));
mkdir($work);
file_put_contents("$work/archive.tar.gz", $bytes);
(new PharData("$work/archive.tar.gz"))->extractTo("$work/extracted");
$folders = array_values(array_diff(scandir("$work/extracted"), ['.', '..']));
if (count($folders) !== 1 || !is_dir("$work/extracted/$folders[0]")) {
    refuse('Extracted app ' . $appId . ' has ' . (count($folders) === 0 ? 'no folders' : 'more than 1 folder'));
}
$xml = simplexml_load_file("$work/extracted/$folders[0]/appinfo/info.xml");
if ($xml === false || (string) $xml->id !== $appId) {
    refuse("App for id $appId has a wrong app ID in info.xml");
}
if ($installed !== null && version_compare((string) $xml->version, $installed, '<')) {
    refuse("App for id $appId has version " . $xml->version . ' and tried to update to lower version ' . $installed);
}

// apps/<id> replaced by what the archive holds.
if (is_dir("$appsDir/$appId")) {
    exec('rm -rf ' . escapeshellarg("$appsDir/$appId"));
}
rename("$work/extracted/$folders[0]", "$appsDir/$appId");
exec('rm -rf ' . escapeshellarg($work));
echo "installed $appId " . $xml->version . "\n";
