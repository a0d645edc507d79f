/* The migrations embedded from results-schema/ at build time (cmake/embed_schema.cmake). */
#ifndef KVB_SCHEMA_H
#define KVB_SCHEMA_H

struct kvb_migration {
	const char *name;  /* file name, "0001_initial.sql" */
	const char *sql;
};

/* In file-name order, terminated by {NULL, NULL}. Migration i sets user_version to i+1. */
extern const struct kvb_migration kvb_migrations[];

#endif
