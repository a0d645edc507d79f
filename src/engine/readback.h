/*
 * Reading a knob back (docs/design.md#witnesses): a write the kernel accepted is not a value it took.
 * cpufreq clamps scaling_max_freq to cpuinfo_max_freq (WA3 #897: "max_freq: asked 2800000,
 * kernel has 2362000"), ms sysctls round to jiffies (net.ipv4.icmp_ratelimit 1 reads 4 at
 * HZ=250), cgroup v1 cpu.shares clamps to [2, 262144], a bool module parameter written 1
 * reads Y. devlib's write_value(verify=True) compares the text read with the text written
 * (devlib/target.py); kvbench compares by the file's format, so a kernel that only prints a
 * value its own way agrees:
 *   - the same text, blanks and the final newline aside ("performance\n");
 *   - the same whitespace-separated words ("4 4 1 7" and "4\t4\t1\t7", kernel.printk);
 *   - the same numbers, word by word ("0100" and "100", "0x10" and "16");
 *   - a features file (sched_features: uppercase words, NO_ before the ones off): every word
 *     written is among those read (WA3 #897: NO_ENERGY_AWARE reads back the whole list,
 *     which WA3's exact comparison took for a failed write);
 *   - a `[selected]` file: the bracketed word is the one written ("always [madvise] never",
 *     /sys/kernel/mm/transparent_hugepage/enabled; "[mq-deadline] none");
 *   - CPU lists as sets ("0-3" and "0,1,2,3", cpuset.cpus, smp_affinity_list);
 *   - hex masks without commas and leading zeros ("f" and "00000000,0000000f");
 *   - booleans (1/y/yes/true/on against 0/n/no/false/off, any case: "1" and "Y").
 * Anything else disagrees.
 */
#ifndef KVB_READBACK_H
#define KVB_READBACK_H

#include <cjson/cJSON.h>

/* 1 when the text found in a knob's file says what asked (the value written) means, else 0. */
int kvb_knob_agrees(const char *asked, const char *found);

/*
 * The value a knob's file holds, for a message or a classifier: the text without the final
 * newline and surrounding blanks, or the selected word of a `[selected]` file. Owned.
 */
char *kvb_knob_value(const char *found);

/*
 * 1 when knob (its classifier key: "sysctl.NAME", "sysfs./PATH", "governor",
 * "cpufreq.CLUSTER.KEY", "cpufreq.CLUSTER.tunables.NAME") is `record` under readback (a
 * kvb_runtime's readback map, may be NULL): the most specific entry wins (the knob itself,
 * then its key cut at each '.' from the end, then "all"); none is `fail`.
 */
int kvb_readback_lenient(const cJSON *readback, const char *knob);

#endif
