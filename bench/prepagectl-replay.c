// SPDX-License-Identifier: GPL-2.0
/*
 * prepage-bench's userspace modes replay a profile with the code of
 * tools/mm/prepagectl replay itself rather than a copy of it: this is that
 * program (from the series' tree, on the include path), built with its
 * main() renamed, and one entry point into it. Errors end the benchmark as
 * they end the tool.
 */
#define main prepagectl_main
#include "prepagectl.c"
#undef main

int prepagectl_replay(int pid, const char *table);

/* prepagectl replay -p @pid @table: 0, or 1 if a range was skipped. */
int prepagectl_replay(int pid, const char *table)
{
	page_size = sysconf(_SC_PAGESIZE);
	return cmd_replay(pid, table);
}
