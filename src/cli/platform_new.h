/* `kvbench platform new NAME --from BASE [--dir DIR]` (argv as cmd_platform got it, argv[1] "new"), and the
 * platform loading the `platform` subcommands share. */
#ifndef KVB_CLI_PLATFORM_NEW_H
#define KVB_CLI_PLATFORM_NEW_H

/*
 * Writes BASE's platform.yaml with the name replaced into DIR/NAME/ (default: where `-p NAME`
 * finds it from any directory) and says where. KVB_OK, KVB_EUSAGE (printed), KVB_EINPUT for a
 * base that does not load or a platform that exists, KVB_EOUTPUT when it cannot be written.
 */
int kvb_platform_new_cmd(int argc, char **argv);
/* The heading of `platform new`'s options in the platform command's table (cmd_platform.c). */
#define KVB_PLATFORM_NEW_GROUP "platform new:"

struct kvb_platform;
/* Loads platform `name` (a name or a path) into *p, its warnings and errors printed to stderr; KVB_EINPUT on an error. */
int kvb_cli_platform_load(struct kvb_platform *p, const char *name);

#endif
