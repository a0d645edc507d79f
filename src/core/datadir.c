/* Implements the lookup of kvbench's shipped data directory (installed share dir, else the source tree). */
#include "core/datadir.h"
#include "core/util.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Both from CMakeLists.txt: the bin -> share/kvbench path, and the source tree ("" in packages). */
static const char rel_datadir[] = KVB_REL_DATADIR;
static const char fallback[] = KVB_DATA_FALLBACK;

static char *g_dir;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void find(void)
{
	char exe[PATH_MAX], *cand = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			char *plat, *abs;
			*slash = '\0';
			cand = kvb_xasprintf("%s/%s", exe, rel_datadir);
			plat = kvb_xasprintf("%s/platforms", cand);
			if (kvb_is_dir(plat) && (abs = realpath(cand, NULL))) {
				g_dir = kvb_xstrdup(abs);
				free(abs);
			}
			free(plat);
		}
	}
	/* a package's kvbench has no fallback: its messages name the share directory it expected */
	if (!g_dir && (*fallback || !cand))
		g_dir = kvb_xstrdup(*fallback ? fallback : "/usr/share/kvbench");
	if (!g_dir) {
		g_dir = cand;
		cand = NULL;
	}
	free(cand);
}

const char *kvb_data_dir(void)
{
	pthread_once(&g_once, find);
	return g_dir;
}
