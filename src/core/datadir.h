/*
 * Where kvbench's shipped data lives: platforms/, agendas/, results-schema/ and
 * the board scripts (scripts/qemu-board ...).
 *
 * An installed kvbench (`cmake --install build --prefix P`, or the Debian
 * package) finds them beside itself: P/bin/kvbench reads P/share/kvbench (the
 * relative path from the bin to the data directory is fixed when the build is
 * configured, from GNUInstallDirs, so any --prefix given at install time works).
 * A kvbench run from its build tree, which has no such directory beside it,
 * reads the source tree it was built from.
 */
#ifndef KVB_DATADIR_H
#define KVB_DATADIR_H

/*
 * The data directory: <directory of /proc/self/exe>/KVB_REL_DATADIR (made
 * absolute) when that holds a platforms/ directory, else the source tree
 * (KVB_DATA_FALLBACK; built with -DKVB_SOURCE_FALLBACK=OFF, as the Debian
 * package is, there is none and the share directory is returned anyway, so
 * messages name where the data was expected). Computed once (pthread_once);
 * the string is static (never freed).
 */
const char *kvb_data_dir(void);

#endif
