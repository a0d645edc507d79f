/*
 * Where kvbench's shipped data lives: platforms/, agendas/, results-schema/ and
 * the board scripts (scripts/qemu-board ...).
 *
 * An installed kvbench (`cmake --install build --prefix P`, or the Debian
 * package) finds them beside itself: P/bin/kvbench reads P/share/kvbench (the
 * relative path from the bin to the data directory is fixed when the build is
 * configured, from GNUInstallDirs, so any --prefix given at install time works).
 * A kvbench run from its build tree, which has no such directory beside it,
 * reads the source tree it was built from (KVB_SOURCE_DIR).
 */
#ifndef KVB_DATADIR_H
#define KVB_DATADIR_H

/*
 * The data directory, absolute: <directory of /proc/self/exe>/KVB_REL_DATADIR
 * when that holds a platforms/ directory, else KVB_SOURCE_DIR. Computed once;
 * the string is static (never freed). Thread-safe after the first call from main.
 */
const char *kvb_data_dir(void);

/* 1 when kvb_data_dir() is an installed data directory, 0 when it is the source tree. */
int kvb_data_dir_installed(void);

#endif
