<?php
// randqa's PHP driver: php php_driver.php stream BACKEND SEED
//                      php php_driver.php time BACKEND SEED CALLS
// stream: BACKEND's bytes to stdout until the reader closes the pipe.
// time:   CALLS calls of the generator in a plain loop; prints the seconds.
// php-mt-rand seeds with mt_srand() and calls mt_rand(); php-rand seeds with
// srand() and calls rand(), PHP's aliases of the two.

function usage() {
    fwrite(STDERR, "usage: php_driver.php stream BACKEND SEED | time BACKEND SEED CALLS\n");
    exit(2);
}

// the 31 bits of each value, packed from the least significant bit of the
// first (8 calls = 31 bytes)
function stream(bool $alias) {
    for (;;) {
        $buf = '';
        for ($w = 0; $w < 2048; $w++) {
            $acc = 0;
            $have = 0;
            for ($k = 0; $k < 8; $k++) {
                $acc |= ($alias ? rand() : mt_rand()) << $have;
                $have += 31;
                while ($have >= 8) {
                    $buf .= chr($acc & 0xFF);
                    $acc >>= 8;
                    $have -= 8;
                }
            }
        }
        if (@fwrite(STDOUT, $buf) !== strlen($buf)) {
            exit(0);  // the reader closed the pipe: it has what it wanted
        }
    }
}

function timed(bool $alias, int $calls): float {
    $sum = 0;
    if ($alias) {
        $start = hrtime(true);
        for ($i = 0; $i < $calls; $i++) $sum += rand();
    } else {
        $start = hrtime(true);
        for ($i = 0; $i < $calls; $i++) $sum += mt_rand();
    }
    $seconds = (hrtime(true) - $start) / 1e9;
    if ($sum == 42) fwrite(STDERR, "$sum\n");  // keeps the loop's work observable
    return $seconds;
}

$args = array_slice($argv, 1);
if (count($args) < 3 || !in_array($args[1], ['php-mt-rand', 'php-rand'], true) || !preg_match('/^[0-9]+$/', $args[2])) usage();
$alias = $args[1] === 'php-rand';
$seed = (int)$args[2];
if ($alias) srand($seed); else mt_srand($seed);
if ($args[0] === 'stream' && count($args) === 3) {
    stream($alias);
} elseif ($args[0] === 'time' && count($args) === 4 && preg_match('/^[0-9]+$/', $args[3])) {
    echo timed($alias, (int)$args[3]), "\n";
} else {
    usage();
}
