/* Implements the legacy (pre-shell-v2) adb shell: CRLF undone, stderr by redirection, exit status by marker. */
#include "target/adb_legacy.h"
#include "core/quote.h"

#include <string.h>

void kvb_adb_crlf_to_lf(struct kvb_buf *b)
{
	size_t w = 0;
	for (size_t r = 0; r < b->len; r++) {
		if (b->data[r] == '\r' && r + 1 < b->len && b->data[r + 1] == '\n')
			continue;
		b->data[w++] = b->data[r];
	}
	b->len = w;
	if (b->cap)
		b->data[w] = '\0';
}

int kvb_adb_features_have_shell_v2(const char *features)
{
	const char *p = features;
	size_t n = strlen("shell_v2");
	while (p && (p = strstr(p, "shell_v2"))) {
		int start = p == features || strchr(",\n\r ", p[-1]);
		int end = !p[n] || strchr(",\n\r ", p[n]);
		if (start && end)
			return 1;
		p += n;
	}
	return 0;
}

void kvb_adb_legacy_wrap(struct kvb_buf *out, const char *joined_cmd, const char *workdir, const char *exit_mark)
{
	const char *wd[] = { workdir, NULL };
	kvb_buf_adds(out, "kvb_e=");
	kvb_shell_join(out, wd);
	/* the workdir may not exist yet on a fresh device; stderr of mkdir itself goes nowhere */
	kvb_buf_adds(out, "/.kvb-err-$$; mkdir -p \"${kvb_e%/*}\" 2>/dev/null; (");
	kvb_buf_adds(out, joined_cmd);
	kvb_buf_adds(out, ") 2>\"$kvb_e\"; kvb_rc=$?; echo; echo " KVB_ADB_ERR_MARK "; cat \"$kvb_e\" 2>/dev/null; rm -f \"$kvb_e\"; echo; echo ");
	kvb_buf_adds(out, exit_mark);
	kvb_buf_adds(out, "$kvb_rc");
}

int kvb_adb_legacy_split(struct kvb_exec_result *r)
{
	const char *pat = "\n" KVB_ADB_ERR_MARK "\n";
	size_t plen = strlen(pat);
	const char *p = r->out.data, *end = r->out.data + r->out.len, *q, *at = NULL;
	while ((q = memmem(p, (size_t)(end - p), pat, plen))) {
		at = q;
		p = q + 1;
	}
	if (!at)
		return 0;
	kvb_buf_reset(&r->err);
	kvb_buf_add(&r->err, at + plen, (size_t)(end - at - plen));
	r->out.len = (size_t)(at - r->out.data);
	r->out.data[r->out.len] = '\0';
	return 1;
}
