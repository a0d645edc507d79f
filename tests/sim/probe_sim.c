/*
 * probe_sim: a simulated energy probe. Writes the real output format of each
 * meter kvbench drives, from a known power function, so tests can check the
 * energy to the joule (constant 1.5 W for 10 s = 15.0 J; a step from 1 W to
 * 2 W at 5 s = 15.0 J) and the handling of bad data.
 *
 *   probe_sim FORMAT [--power const:W | step:W1:W2:T_S | wave:W:AMP:HZ] [--duration S] [--rate HZ]
 *             [--channels N] [--t0-ns NS] [--bad truncated|nan|nonmono|missing|empty]
 *             [--done FILE] [-o FILE]
 *   (iio-capture mode reads the --done FILE from $PROBE_SIM_DONE)
 *   $PROBE_SIM_BOARD=DIR (any format): the power follows the kernel a simulated board booted
 *   (scripts/android-sim): DIR is an adbd_sim state directory, and DIR/kernel/cmdline (written
 *   by tests/sim/fastboot_sim) holds sim.power_mw=P; iio:device0 then reads 60 % of P and
 *   iio:device1 40 % (a big and a little rail), each recording at its own level within +-3 %
 *   (seeded by time and pid) with a 4 % ripple at 3 Hz.
 *   iio-capture -n HOST -b BUF -c -f FILE iio:deviceN   (probe_sim run through a symlink named
 *                                                        iio-capture acts as BayLibre's tool)
 *
 * FORMAT: csv (`time,ch0,...`, s and W), aep (arm-probe: '#' header, label line
 * "time NAME(V) NAME(A) NAME(W)", tab separated, s and W), acme (iio-capture
 * -c CSV as BayLibre's tool writes it: `"vshunt mV", "vbus mV", "power mW",
 * "current mA", "timestamp ms"`, values "%.1f" joined by ", ", time in ms
 * since the first sample; checked against a real capture in test_energy),
 * monsoon (output_power and usb_power in W, no timestamps).
 *
 * Sample i is at t_i = i / rate for i = 0..duration*rate, and holds the mean
 * power over (t_(i-1), t_i] like an integrating meter. With --done the
 * program writes everything, creates FILE, then waits for SIGTERM like a
 * meter that records until it is stopped. Bad lines are at data row
 * rows/2; the line number is printed on stderr ("bad line N").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* M_PI */
#endif
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double w1 = 1.5, w2 = 1.5, t_step = 0, wave_amp = 0, wave_hz = 0;
static int stepped;

/* Mean power (W) over (a, b]. */
static double mean_power(double a, double b)
{
	if (wave_hz > 0) /* bench data: a wave sampled at b (not an exact mean; only used for load) */
		return w1 + wave_amp * sin(2 * M_PI * wave_hz * b);
	if (!stepped || b <= t_step)
		return w1;
	if (a >= t_step)
		return w2;
	return (w1 * (t_step - a) + w2 * (b - t_step)) / (b - a);
}

static volatile sig_atomic_t stop_flag;
static void on_term(int s)
{
	(void)s;
	stop_flag = 1;
}

/* Fast fixed-point output: the bench writes 36 M rows. */
static char *put_fixed(char *p, double v, int decimals)
{
	static const long long scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000 };
	long long x;
	char tmp[32];
	int n = 0;
	if (v < 0) {
		*p++ = '-';
		v = -v;
	}
	x = llround(v * (double)scale[decimals]);
	long long ip = x / scale[decimals], fp = x % scale[decimals];
	do {
		tmp[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (n)
		*p++ = tmp[--n];
	if (decimals) {
		*p++ = '.';
		for (int i = decimals - 1; i >= 0; i--) {
			p[i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		p += decimals;
	}
	return p;
}

/* $PROBE_SIM_BOARD: the level from the booted kernel's sim.power_mw (see the top). 0, or -1 without one. */
static int board_power(const char *dir, const char *dev)
{
	char path[4096], cmd[4096];
	const char *p;
	double mw = 0, share = strcmp(dev, "iio:device1") ? 0.6 : 0.4;
	FILE *f;
	snprintf(path, sizeof(path), "%s/kernel/cmdline", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	cmd[0] = '\0';
	if (!fgets(cmd, sizeof(cmd), f))
		cmd[0] = '\0';
	fclose(f);
	for (p = cmd; (p = strstr(p, "sim.power_mw=")); p++)
		if (p == cmd || p[-1] == ' ')
			mw = atof(p + strlen("sim.power_mw="));
	if (mw <= 0)
		return -1;
	srand((unsigned)time(NULL) ^ (unsigned)getpid() << 8);
	w1 = w2 = mw / 1000.0 * share * (1 + 0.06 * ((double)rand() / RAND_MAX - 0.5));
	wave_amp = 0.04 * w1;
	wave_hz = 3;
	return 0;
}

int main(int argc, char **argv)
{
	/* Installed (symlinked) as iio-capture it behaves as BayLibre's tool, whose argv has no format word. */
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int iio = !strcmp(base, "iio-capture"), first = iio ? 1 : 2;
	const char *fmt = iio ? "iio-capture" : argc > 1 ? argv[1] : "";
	const char *out_path = NULL, *done = NULL, *bad = "", *dev = "iio:device0";
	double duration = 10, rate = 0;
	long long t0_ns = 0;
	int nch = 1;
	FILE *f = stdout;
	static char line[8192];

	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--power") && v) {
			if (sscanf(v, "step:%lf:%lf:%lf", &w1, &w2, &t_step) == 3)
				stepped = 1;
			else if (sscanf(v, "wave:%lf:%lf:%lf", &w1, &wave_amp, &wave_hz) == 3)
				;
			else if (sscanf(v, "const:%lf", &w1) == 1)
				w2 = w1;
			else
				return fprintf(stderr, "probe_sim: bad --power '%s'\n", v), 2;
			i++;
		} else if (!strcmp(a, "--duration") && v) {
			duration = atof(v), i++;
		} else if (!strcmp(a, "--rate") && v) {
			rate = atof(v), i++;
		} else if (!strcmp(a, "--channels") && v) {
			nch = atoi(v), i++;
		} else if (!strcmp(a, "--t0-ns") && v) {
			t0_ns = atoll(v), i++;
		} else if (!strcmp(a, "--bad") && v) {
			bad = v, i++;
		} else if (!strcmp(a, "--done") && v) {
			done = v, i++;
		} else if ((!strcmp(a, "-o") || (iio && !strcmp(a, "-f"))) && v) {
			out_path = v, i++;
		} else if (iio && (!strcmp(a, "-n") || !strcmp(a, "-b")) && v) {
			i++;
		} else if (iio && !strcmp(a, "-c")) {
		} else if (iio && a[0] != '-') {
			dev = a;
		} else {
			return fprintf(stderr, "probe_sim: unknown argument '%s'\n", a), 2;
		}
	}
	if (iio) {
		fmt = "acme";
		if (!out_path)
			return fprintf(stderr, "probe_sim: iio-capture needs -f FILE\n"), 2;
		if (strncmp(dev, "iio:device", 10))
			return fprintf(stderr, "Device %s not found\n", dev), 1;
		/* iio-capture has no such option: tests say where to signal "all written" by environment. */
		done = done ? done : getenv("PROBE_SIM_DONE") ? getenv("PROBE_SIM_DONE") : "";
	}
	if (getenv("PROBE_SIM_BOARD") && board_power(getenv("PROBE_SIM_BOARD"), dev))
		return fprintf(stderr, "probe_sim: no sim.power_mw in %s/kernel/cmdline\n", getenv("PROBE_SIM_BOARD")), 1;
	if (strcmp(fmt, "csv") && strcmp(fmt, "aep") && strcmp(fmt, "acme") && strcmp(fmt, "monsoon"))
		return fprintf(stderr, "usage: probe_sim csv|aep|acme|monsoon|iio-capture [options]\n"), 2;
	if (rate <= 0)
		rate = !strcmp(fmt, "acme") ? 100 : !strcmp(fmt, "aep") ? 10000 : !strcmp(fmt, "monsoon") ? 5000 : 1000;
	if (out_path && !(f = fopen(out_path, "w")))
		return perror(out_path), 1;
	signal(SIGTERM, on_term);
	setvbuf(f, NULL, _IOFBF, 1 << 20);

	long long rows = llround(duration * rate) + 1, bad_row = rows / 2;
	int header_lines = 0, cols = nch;
	if (!strcmp(bad, "missing"))
		cols = nch - 1;
	if (!strcmp(bad, "empty"))
		rows = 0;
	else if (!strcmp(fmt, "csv")) {
		fputs(t0_ns ? "time_ns" : "time", f);
		for (int c = 0; c < cols; c++)
			fprintf(f, ",ch%d", c);
		fputc('\n', f);
		header_lines = 1;
	} else if (!strcmp(fmt, "aep")) {
		fputs("# configuration: probe_sim\n# config_name: sim\n#\n", f);
		fputs("time", f);
		for (int c = 0; c < cols; c++)
			fprintf(f, "\tCH%d(V)\tCH%d(A)\tCH%d(W)", c, c, c);
		fputc('\n', f);
		header_lines = 4;
	} else if (!strcmp(fmt, "acme")) {
		/* BayLibre iio-capture's header, byte for byte (tests/fixtures/field/acme). */
		fputs("\"vshunt mV\", \"vbus mV\", \"power mW\", \"current mA\", \"timestamp ms\"\n", f);
		header_lines = 1;
	}
	for (long long i = 0; i < rows && !stop_flag; i++) {
		double t = (double)i / rate, p = mean_power(i ? (double)(i - 1) / rate : 0, i ? t : 1e-12);
		long long tns = llround((double)i * 1e9 / rate);
		char *q = line;
		int is_bad = i == bad_row && *bad;
		if (!strcmp(fmt, "csv")) {
			if (t0_ns) {
				q += sprintf(q, "%lld", t0_ns + (is_bad && !strcmp(bad, "nonmono") ? -tns : tns));
			} else {
				q = put_fixed(q, is_bad && !strcmp(bad, "nonmono") ? t - 1 : t, 6);
			}
			for (int c = 0; c < cols; c++) {
				if (is_bad && !strcmp(bad, "truncated") && c == cols - 1)
					break;
				*q++ = ',';
				if (is_bad && !strcmp(bad, "nan")) {
					memcpy(q, "nan", 3);
					q += 3;
				} else {
					/* ch1.. are c+1 times ch0 so per-channel energies differ. */
					q = put_fixed(q, p * (c + 1), 6);
				}
			}
		} else if (!strcmp(fmt, "aep")) {
			q = put_fixed(q, is_bad && !strcmp(bad, "nonmono") ? t - 1 : t, 6);
			for (int c = 0; c < cols; c++) {
				if (is_bad && !strcmp(bad, "truncated") && c == cols - 1)
					break;
				double pw = p * (c + 1), v = 5.0;
				*q++ = '\t';
				q = put_fixed(q, v, 4);
				*q++ = '\t';
				q = put_fixed(q, pw / v, 6);
				*q++ = '\t';
				if (is_bad && !strcmp(bad, "nan")) {
					memcpy(q, "nan", 3);
					q += 3;
				} else {
					q = put_fixed(q, pw, 6);
				}
			}
		} else if (!strcmp(fmt, "acme")) {
			/* iio-capture -c: "%.1f, " per value, the timestamp last in ms since its first sample. */
			double ms = t * 1000.0, mw = p * 1000.0, mv = 5000.0;
			if (is_bad && !strcmp(bad, "truncated")) {
				q += sprintf(q, "%.1f, %.1f", 10.0, mv);
			} else {
				q += sprintf(q, "%.1f, %.1f, ", 10.0, mv);
				q += is_bad && !strcmp(bad, "nan") ? sprintf(q, "nan") : sprintf(q, "%.1f", mw);
				q += sprintf(q, ", %.1f, %.1f", mw / mv * 1000.0,
					     is_bad && !strcmp(bad, "nonmono") ? ms - 1000 : ms);
			}
		} else { /* monsoon */
			for (int c = 0; c < cols && c < 2; c++) {
				if (is_bad && !strcmp(bad, "truncated") && c == 1)
					break;
				if (c)
					*q++ = ' ';
				if (is_bad && !strcmp(bad, "nan")) {
					memcpy(q, "nan", 3);
					q += 3;
				} else {
					q = put_fixed(q, c ? 0.25 : p, 6);
				}
			}
		}
		*q++ = '\n';
		fwrite(line, 1, (size_t)(q - line), f);
		if (is_bad)
			fprintf(stderr, "bad line %lld\n", header_lines + i + 1);
	}
	if (fflush(f) || (f != stdout && fclose(f)))
		return perror("probe_sim: write"), 1;
	if (done) {
		if (*done) {
			FILE *d = fopen(done, "w");
			if (d)
				fclose(d);
		}
		while (!stop_flag)
			pause();
	}
	return 0;
}
