/*
 * The adb target's own header, shared by target/adb.c and adb_ready.c and by nothing else: the
 * device's state and what one file calls in the other.
 */
#ifndef KVB_TARGET_ADB_INTERNAL_H
#define KVB_TARGET_ADB_INTERNAL_H

#include "target/adb.h"
#include "target/adb_legacy.h"
#include "config/platform.h"
#include "core/log.h"
#include "core/quote.h"
#include "core/util.h"

#define ADB_SHORT_MS 20000ull      /* adb connect/get-state/reboot: local or quick device round trips */
#define ADB_DOWN_MS 30000ull       /* how long a rebooting device may stay online */

struct adb_priv {
	char *serial;
	char *adb;
	char *server_port; /* decimal, or NULL for adb's default */
	int connect;
	int shell_v2;      /* 1 the device has shell protocol v2, 0 legacy (adb_legacy.h), -1 not asked yet */
	int su_form;       /* connection.root su: 0 off, 1 `su 0 sh -c CMD` (AOSP su), 2 `su -c CMD` (SuperSU, Magisk) */
};

/* adb_ready.c */
int kvb_adb_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err);
int kvb_adb_wait_ready(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err);

/* adb.c */
int kvb_adb_run(struct kvb_target *t, int with_serial, const char *const *args, uint64_t timeout_ms,
	    struct kvb_exec_result *r, struct kvb_error *err);
const char *kvb_adb_why(const struct kvb_exec_result *r, char *buf, size_t n);
void kvb_adb_trim(struct kvb_buf *b);
int kvb_adb_connect_once(struct kvb_target *t, struct kvb_error *err);
void kvb_adb_state(struct kvb_target *t, char *state, size_t n);
void kvb_adb_disconnect(struct kvb_target *t);

#endif
