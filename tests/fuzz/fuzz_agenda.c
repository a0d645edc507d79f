/* Fuzzes the agenda loader: kvb_doc_parse (YAML or JSON), kvb_agenda_from_doc, then what `run` does next. */
#include "config/agenda.h"
#include "engine/catalog.h"
#include "engine/engine.h"
#include "engine/plan.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A trailing space selects the .json name: JSON parsing without a leading '{' (lists, scalars) */
	const char *name = size && data[size - 1] == ' ' ? "fuzz.json" : "fuzz.yaml";
	char *text = kvb_fuzz_str(data, size);
	struct kvb_doc doc;
	struct kvb_diag d;
	struct kvb_agenda a;

	memset(&a, 0, sizeof(a));
	kvb_diag_init(&d, NULL);
	if (!kvb_doc_parse(&doc, name, text, size, &d) && !kvb_agenda_from_doc(&a, &doc, &kvb_catalog, &d)) {
		struct kvb_plan plan;
		kvb_agenda_default_variant(&a);
		free(kvb_engine_agenda_json(&a));
		kvb_plan_build(&plan, &a, a.rounds > 0 ? a.rounds : 2);
		kvb_plan_release(&plan);
	}
	kvb_agenda_release(&a);
	d.doc = NULL;
	kvb_doc_release(&doc);
	kvb_diag_release(&d);
	free(text);
	return 0;
}
