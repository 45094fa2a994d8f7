// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Without libFuzzer: run every file named on the command line (or every
 * file of the directories named) through the fuzz target once.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, r;
	uint8_t *buf = malloc(cap);

	if (!f || !buf) {
		fprintf(stderr, "cannot read %s\n", path);
		free(buf);
		if (f)
			fclose(f);
		return 1;
	}
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				fclose(f);
				return 1;
			}
			buf = nb;
		}
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int failed = 0, files = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *de;
		DIR *d;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			failed |= run_file(argv[i]);
			files++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			failed |= run_file(path);
			files++;
		}
		if (d)
			closedir(d);
	}
	{
		const char *name = strrchr(argv[0], '/');

		/* the target's name: fuzz-mountinfo, fuzz-tab */
		name = name ? name + 1 : argv[0];
		printf("%s %s-corpus: %d inputs\n", failed ? "FAIL" : "PASS",
		       name, files);
	}
	return failed;
}
