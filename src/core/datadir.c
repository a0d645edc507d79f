/* Implements the lookup of kvbench's shipped data directory (installed share dir, else the source tree). */
#include "core/datadir.h"
#include "core/util.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef KVB_REL_DATADIR
#define KVB_REL_DATADIR "../share/kvbench"
#endif

static char *g_dir;
static int g_installed;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void find(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash, *cand, *plat, *abs;
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			cand = kvb_xasprintf("%s/%s", exe, KVB_REL_DATADIR);
			plat = kvb_xasprintf("%s/platforms", cand);
			if (kvb_is_dir(plat) && (abs = realpath(cand, NULL))) {
				g_dir = kvb_xstrdup(abs);
				free(abs);
				g_installed = 1;
			}
			free(plat);
			free(cand);
		}
	}
	if (!g_dir)
		g_dir = kvb_xstrdup(KVB_SOURCE_DIR);
}

const char *kvb_data_dir(void)
{
	pthread_once(&g_once, find);
	return g_dir;
}

int kvb_data_dir_installed(void)
{
	pthread_once(&g_once, find);
	return g_installed;
}
