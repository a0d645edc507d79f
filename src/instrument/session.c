/* Implements instrument resolution for a run and the per-job start/stop sequence described in session.h. */
#include "instrument/session.h"
#include "core/log.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>


static void add_inst(struct kvb_instr_set *set, const char *name, const struct kvb_instrument_ops *ops,
		     const cJSON *conf, cJSON *owned)
{
	struct kvb_instr_inst *in;
	set->v = kvb_xrealloc(set->v, (set->n + 1) * sizeof(*set->v));
	in = &set->v[set->n++];
	in->name = kvb_xstrdup(name);
	in->ops = ops;
	in->conf = owned ? owned : conf;
	in->owned_conf = owned;
}

static void remove_at(struct kvb_instr_set *set, size_t i)
{
	free(set->v[i].name);
	cJSON_Delete(set->v[i].owned_conf);
	memmove(&set->v[i], &set->v[i + 1], (set->n - i - 1) * sizeof(*set->v));
	set->n--;
}

/* Checks an instance's keys: type plus the backend's table (kvb_instr_conf_check), as one error. */
static int check_conf(const struct kvb_platform *plat, const char *name, const cJSON *conf,
		      const struct kvb_instrument_ops *ops, struct kvb_error *err)
{
	struct kvb_diag d;
	char *path = kvb_xasprintf("instruments.%s", name);
	int bad;
	kvb_diag_init(&d, &plat->doc);
	bad = kvb_instr_conf_check(path, conf, ops, &d);
	if (bad) {
		struct kvb_buf b = KVB_BUF_INIT;
		for (size_t i = 0; i < d.msgs.n; i++)
			kvb_buf_addf(&b, "%s%s", i ? "\n" : "", d.msgs.v[i]);
		kvb_error_set(err, KVB_EINPUT, "%s", b.data);
		kvb_buf_release(&b);
	}
	kvb_diag_release(&d);
	free(path);
	return bad ? KVB_EINPUT : KVB_OK;
}

/* The agenda's settings for one type over the conf of every enabled instance of it (session.h). */
static void apply_settings(struct kvb_instr_set *set, const cJSON *settings)
{
	for (const cJSON *kv = cJSON_IsObject(settings) ? settings->child : NULL; kv; kv = kv->next) {
		int used = 0;
		for (size_t i = 0; i < set->n; i++) {
			struct kvb_instr_inst *in = &set->v[i];
			cJSON *c;
			if (strcmp(in->ops->name, kv->string))
				continue;
			c = cJSON_Duplicate(in->conf, 1);
			for (const cJSON *s = kv->child; s; s = s->next) {
				cJSON_DeleteItemFromObjectCaseSensitive(c, s->string);
				cJSON_AddItemToObject(c, s->string, cJSON_Duplicate(s, 1));
			}
			cJSON_Delete(in->owned_conf);
			in->owned_conf = c;
			in->conf = c;
			used = 1;
		}
		if (!used)
			kvb_warn("agenda: config: %s: settings for an instrument the run does not enable (add it to "
				 "`instruments:`); ignored",
				 kv->string);
	}
}

int kvb_instr_set_build(struct kvb_instr_set *set, const struct kvb_platform *plat, const cJSON *list,
			const cJSON *settings, struct kvb_error *err)
{
	const cJSON *pi = plat ? plat->instruments : NULL;
	memset(set, 0, sizeof(*set));
	for (const cJSON *kv = pi ? pi->child : NULL; kv; kv = kv->next) {
		const char *type = kvb_get_str(kv, "type", NULL);
		const struct kvb_instrument_ops *ops = type ? kvb_instrument_find(type) : NULL;
		if (!cJSON_IsObject(kv) || !type)
			return kvb_error_set(err, KVB_EINPUT, "%s: instruments.%s needs `type:` (an instrument backend)",
					     plat->file, kv->string);
		if (!ops)
			return kvb_error_set(err, KVB_EINPUT, "%s: instruments.%s: unknown instrument type '%s'", plat->file,
					     kv->string, type);
		if (check_conf(plat, kv->string, kv, ops, err))
			return KVB_EINPUT;
		add_inst(set, kv->string, ops, kv, NULL);
	}
	for (const cJSON *it = cJSON_IsArray(list) ? list->child : NULL; it; it = it->next) {
		const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
		int off, found = 0;
		if (!s || !*s)
			return kvb_error_set(err, KVB_EINPUT, "agenda: instruments: entries are names");
		off = s[0] == '~';
		s += off;
		for (size_t i = 0; i < set->n;) {
			if (!strcmp(set->v[i].name, s) || !strcmp(set->v[i].ops->name, s)) {
				found = 1;
				if (off) {
					remove_at(set, i);
					continue;
				}
			}
			i++;
		}
		if (!found && !off) {
			const struct kvb_instrument_ops *ops = kvb_instrument_find(s);
			cJSON *conf;
			if (!ops)
				return kvb_error_set(err, KVB_EINPUT,
						     "agenda: unknown instrument '%s' (not in the platform's instruments, not a backend)",
						     s);
			conf = cJSON_CreateObject();
			cJSON_AddStringToObject(conf, "type", s);
			add_inst(set, s, ops, NULL, conf);
		}
	}
	apply_settings(set, settings);
	return KVB_OK;
}

void kvb_instr_set_release(struct kvb_instr_set *set)
{
	while (set->n)
		remove_at(set, set->n - 1);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

unsigned kvb_instr_set_wants(const struct kvb_instr_set *set)
{
	unsigned w = 0;
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].ops->wants)
			w |= set->v[i].ops->wants(set->v[i].conf);
	return w;
}

static void record(struct kvb_instr_job *j, size_t i, const char *phase, const struct kvb_error *e)
{
	const char *name = j->set->v[i].name;
	j->state[i] = -1;
	kvb_warn("instrument '%s' failed at %s: %s", name, phase, e->msg);
	/* the one place an instrument's error gets its instance's name: backends never add it */
	kvb_buf_addf(&j->errors, "%sinstrument '%s': %s", j->errors.len ? "; " : "", name, e->msg);
}

void kvb_instr_job_start(struct kvb_instr_job *j, const struct kvb_instr_set *set, struct kvb_target *t,
			 const struct kvb_platform *plat, const char *artifact_dir, const char *remote_dir,
			 struct kvb_metrics *out)
{
	memset(j, 0, sizeof(*j));
	j->set = set;
	kvb_buf_init(&j->errors);
	j->ctx = kvb_xcalloc(set->n + 1, sizeof(*j->ctx));
	j->state = kvb_xcalloc(set->n + 1, sizeof(*j->state));
	for (size_t i = 0; i < set->n; i++) {
		struct kvb_instr_ctx *c = &j->ctx[i];
		const struct kvb_instrument_ops *ops = set->v[i].ops;
		struct kvb_error e;
		c->name = set->v[i].name;
		c->conf = set->v[i].conf;
		c->target = t;
		c->plat = plat;
		c->artifact_dir = artifact_dir;
		c->remote_dir = remote_dir;
		c->out = out;
		c->instruction_clock = (ops->caps & KVB_INSTR_INSTRUCTION_CLOCK) && kvb_instr_board_counts_instructions(t);
		kvb_error_clear(&e);
		if (ops->setup && ops->setup(c, &e)) {
			record(j, i, "setup", &e);
			continue;
		}
		j->state[i] = 1;
		if (ops->start(c, &e)) {
			record(j, i, "start", &e);
			continue;
		}
		j->state[i] = 2;
	}
	{
		int64_t now = kvb_wall_ns();
		for (size_t i = 0; i < set->n; i++)
			j->ctx[i].start_ns = now;
	}
}

void kvb_instr_job_stop(struct kvb_instr_job *j)
{
	int64_t now = kvb_wall_ns();
	for (size_t i = 0; i < j->set->n; i++)
		j->ctx[i].stop_ns = now;
	/* Stop in reverse order of start, like a stack of wrappers around the workload. */
	for (size_t k = j->set->n; k-- > 0;) {
		struct kvb_error e;
		if (j->state[k] == 2 && j->set->v[k].ops->stop(&j->ctx[k], &e))
			record(j, k, "stop", &e);
	}
	for (size_t i = 0; i < j->set->n; i++) {
		struct kvb_error e;
		if (j->state[i] == 2 && j->set->v[i].ops->collect(&j->ctx[i], &e))
			record(j, i, "collect", &e);
	}
	for (size_t i = 0; i < j->set->n; i++)
		if (j->set->v[i].ops->teardown)
			j->set->v[i].ops->teardown(&j->ctx[i]);
	memset(j->state, 0, j->set->n * sizeof(*j->state));
}

const char *kvb_instr_job_error(const struct kvb_instr_job *j)
{
	return j->errors.len ? j->errors.data : NULL;
}

void kvb_instr_job_release(struct kvb_instr_job *j)
{
	if (j->ctx && j->set) {
		for (size_t i = 0; i < j->set->n; i++)
			if (j->set->v[i].ops->teardown && j->ctx[i].priv)
				j->set->v[i].ops->teardown(&j->ctx[i]);
	}
	free(j->ctx);
	free(j->state);
	kvb_buf_release(&j->errors);
	memset(j, 0, sizeof(*j));
}
