/* Implements the progress line of a long step (core/progress.h): rewritten every second on a terminal, a line every few tens of seconds in a log. */
#include "core/progress.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <unistd.h>

#define NS_PER_S 1000000000ull
#define FIRST_LINE_S 30u /* a step shorter than this prints nothing in a log */

void kvb_progress_start(struct kvb_progress *p, const char *title, unsigned every_s, int quiet)
{
	p->title = title;
	p->t0_ns = kvb_mono_ns();
	p->last_ns = 0;
	p->every_s = every_s ? every_s : 60;
	p->quiet = quiet;
	p->tty = !quiet && isatty(2);
}

int kvb_progress_due(const struct kvb_progress *p)
{
	uint64_t now = kvb_mono_ns();
	if (p->quiet)
		return 0;
	if (p->tty)
		return now - p->last_ns > NS_PER_S;
	return now - p->t0_ns > FIRST_LINE_S * NS_PER_S && now - p->last_ns > p->every_s * NS_PER_S;
}

void kvb_progress_tick(struct kvb_progress *p, const char *detail)
{
	uint64_t now = kvb_mono_ns();
	unsigned long long s;
	if (!kvb_progress_due(p))
		return;
	s = (now - p->t0_ns) / NS_PER_S;
	if (p->tty)
		fprintf(stderr, "\r\033[K%s: %llu s  %s", p->title, s, detail ? detail : "");
	else
		kvb_info("%s: %llu s  %s", p->title, s, detail ? detail : "");
	p->last_ns = now;
}

void kvb_progress_end(struct kvb_progress *p)
{
	if (p->tty && p->last_ns)
		fputs("\r\033[K", stderr);
	p->last_ns = 0;
}
