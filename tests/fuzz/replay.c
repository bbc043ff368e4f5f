// SPDX-License-Identifier: MIT
/*
 * Replay driver for a libFuzzer target without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every regular file in the directories (or
 * files) named on the command line, so CTest exercises the target and its
 * seed corpus with any compiler. A crash is the failure; exit 1 only when an
 * input cannot be read.
 *
 *   fuzz_proto_replay tests/fuzz/corpus
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf = NULL;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		goto out_fail;
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		goto out_fail;
	if (st.st_size) {
		n = read(fd, buf, (size_t)st.st_size);
		if (n != st.st_size)
			goto out_fail;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
out_fail:
	perror(path);
	free(buf);
	if (fd >= 0)
		close(fd);
	return -1;
}

static int replay_dir(const char *dir, unsigned int *count)
{
	char path[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(dir);
	int ret = 0;

	if (!dp) {
		perror(dir);
		return -1;
	}
	while ((d = readdir(dp))) {
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (replay_file(path))
			ret = -1;
		else
			(*count)++;
	}
	closedir(dp);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	struct stat st;
	int i, ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
			ret |= replay_dir(argv[i], &count);
		else if (replay_file(argv[i]))
			ret = -1;
		else
			count++;
	}
	printf("replayed %u inputs\n", count);
	return ret ? 1 : 0;
}
