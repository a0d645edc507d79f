/* Implements a build spec read from its YAML keys (kvb_build_keys), and the release of specs and results. */
#include "kbuild/kbuild_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const struct kvb_keydef kvb_build_keys[] = {
	{ "repo", KVB_T_STR, NULL, NULL, 0, "git repository of variants that name no repo (and of --series, bisect)" },
	{ "config", KVB_T_STRLIST, NULL, NULL, 0,
	  "make config targets (defconfig, tinyconfig) and/or fragment files (*.config), applied in order" },
	{ "make_args", KVB_T_STRLIST, NULL, NULL, 0, "arguments of every make call: ARCH=, CROSS_COMPILE=, LLVM=1" },
	{ "outputs", KVB_T_MAP, NULL, NULL, 0,
	  "{kernel, dtb, initrd, modules}: files the build produces, relative to the object directory" },
	{ "command", KVB_T_STR, NULL, NULL, 0,
	  "vendor build script run instead of make; gets KVB_SRC and KVB_OUT, writes the outputs under KVB_OUT" },
	{ "jobs", KVB_T_INT, "nproc", NULL, KVB_KEY_POSITIVE, "make -j" },
	{ "timeout_s", KVB_T_INT, "10800", NULL, KVB_KEY_POSITIVE, "limit of one build, s" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef output_keys[] = {
	{ "kernel", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "kernel image (arch/x86/boot/bzImage, arch/arm64/boot/Image.gz)" },
	{ "dtb", KVB_T_STR, NULL, NULL, 0, "device tree blob" },
	{ "initrd", KVB_T_STR, NULL, NULL, 0, "initial ramdisk" },
	{ "modules", KVB_T_STR, NULL, NULL, 0, "modules tarball" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

char *kvb_build_resolve(const char *base_dir, const char *p)
{
	char *abs, *joined;
	if (p[0] == '~' && p[1] == '/' && getenv("HOME"))
		joined = kvb_xasprintf("%s/%s", getenv("HOME"), p + 2);
	else if (p[0] == '/' || !base_dir)
		joined = kvb_xstrdup(p);
	else
		joined = kvb_xasprintf("%s/%s", base_dir, p);
	if (joined[0] == '/' || !(abs = realpath(joined, NULL)))
		return joined;
	free(joined);
	return abs;
}

int kvb_build_is_fragment(const char *item)
{
	size_t n = strlen(item);
	return strchr(item, '/') || (n > 7 && !strcmp(item + n - 7, ".config"));
}

void kvb_build_push_strlist(struct kvb_strv *out, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		kvb_strv_push(out, v->valuestring);
		return;
	}
	for (const cJSON *c = v ? v->child : NULL; c; c = c->next) {
		char *s = kvb_node_str(c);
		if (s)
			kvb_strv_push(out, s);
		free(s);
	}
}

int kvb_build_spec_load(struct kvb_build_spec *s, const cJSON *obj, const char *path, const char *base_dir,
			struct kvb_diag *d)
{
	size_t before = d->msgs.n;
	struct kvb_strv cfg = KVB_STRV_INIT;
	memset(s, 0, sizeof(*s));
	s->timeout_s = 10800;
	if (!obj)
		return KVB_OK;
	if (kvb_keys_check(obj, path, kvb_build_keys, d))
		return KVB_EINPUT;
	if (kvb_get_str(obj, "repo", NULL))
		s->repo = kvb_build_resolve(base_dir, kvb_get_str(obj, "repo", NULL));
	kvb_build_push_strlist(&cfg, cJSON_GetObjectItemCaseSensitive(obj, "config"));
	for (size_t i = 0; i < cfg.n; i++) {
		if (!kvb_build_is_fragment(cfg.v[i])) {
			kvb_strv_push(&s->config, cfg.v[i]);
			continue;
		}
		char *f = kvb_build_resolve(base_dir, cfg.v[i]);
		if (!kvb_is_file(f)) {
			char *p = kvb_xasprintf("%s.config[%zu]", path, i);
			kvb_diag_at(d, p, "no config fragment file '%s'", f);
			free(p);
		}
		kvb_strv_push(&s->config, f);
		free(f);
	}
	kvb_strv_release(&cfg);
	kvb_build_push_strlist(&s->make_args, cJSON_GetObjectItemCaseSensitive(obj, "make_args"));
	for (size_t i = 0; i < s->make_args.n; i++)
		if (!strchr(s->make_args.v[i], '=') || s->make_args.v[i][0] == '-') {
			char *p = kvb_xasprintf("%s.make_args[%zu]", path, i);
			kvb_diag_at(d, p, "'%s' is not a VAR=value make argument", s->make_args.v[i]);
			free(p);
		}
	if (kvb_get_str(obj, "command", NULL)) {
		s->command = kvb_build_resolve(base_dir, kvb_get_str(obj, "command", NULL));
		if (access(s->command, X_OK)) {
			char *p = kvb_xasprintf("%s.command", path);
			kvb_diag_at(d, p, "'%s' is not an executable file", s->command);
			free(p);
		}
		if (s->config.n) {
			char *p = kvb_xasprintf("%s.config", path);
			kvb_diag_at(d, p, "config and command exclude each other (a vendor command configures itself)");
			free(p);
		}
	}
	{
		const cJSON *outs = cJSON_GetObjectItemCaseSensitive(obj, "outputs");
		char *p = kvb_xasprintf("%s.outputs", path);
		if (!outs)
			kvb_diag_at(d, path, "missing outputs: {kernel: PATH} (e.g. arch/x86/boot/bzImage)");
		else if (!kvb_keys_check(outs, p, output_keys, d))
			for (int i = 0; i < KVB_BOUT_N; i++) {
				const char *o = kvb_get_str(outs, kvb_bout_names[i], NULL);
				if (o && (o[0] == '/' || strstr(o, ".."))) {
					char *q = kvb_path_key(p, kvb_bout_names[i]);
					kvb_diag_at(d, q, "'%s' must be relative to the object directory, without '..'", o);
					free(q);
				} else if (o) {
					s->outputs[i] = kvb_xstrdup(o);
				}
			}
		free(p);
	}
	s->jobs = (int)kvb_get_int(obj, "jobs", 0);
	s->timeout_s = (unsigned)kvb_get_int(obj, "timeout_s", 10800);
	return d->msgs.n > before ? KVB_EINPUT : KVB_OK;
}

void kvb_build_spec_release(struct kvb_build_spec *s)
{
	free(s->repo);
	kvb_strv_release(&s->config);
	kvb_strv_release(&s->make_args);
	free(s->command);
	for (int i = 0; i < KVB_BOUT_N; i++)
		free(s->outputs[i]);
	memset(s, 0, sizeof(*s));
}

void kvb_build_result_release(struct kvb_build_result *r)
{
	free(r->describe);
	free(r->subject);
	free(r->toolchain);
	free(r->dir);
	for (int i = 0; i < KVB_BOUT_N; i++)
		free(r->files[i]);
	free(r->log);
	free(r->error);
	free(r->config);
	kvb_strv_release(&r->patches);
	memset(r, 0, sizeof(*r));
}
