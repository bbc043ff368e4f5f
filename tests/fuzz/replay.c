// SPDX-License-Identifier: MIT
/*
 * Replay driver for a libFuzzer target without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every regular file in the directories (or
 * files) named on the command line, so CTest exercises the target and its
 * seed corpus with any compiler. A crash is the failure; so is exit 1, when
 * an input or a directory cannot be read, or a directory holds no input
 * (a replay of nothing tests nothing). Names starting with '.' are not
 * inputs (.gitkeep).
 *
 *   fuzz_proto_replay tests/fuzz/corpus
 */
#include <dirent.h>
#include <errno.h>
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

/* Replay the entry @name of @dir if it is an input: 1 if it was, 0 if it
 * is no input, -1 on an error. */
static int replay_entry(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (name[0] == '.')
		return 0;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		fprintf(stderr, "%s/%s: path too long\n", dir, name);
		return -1;
	}
	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return 0;
	return replay_file(path) ? -1 : 1;
}

static int replay_dir(const char *dir, unsigned int *count)
{
	unsigned int here = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = 0, n;

	if (!dp) {
		fprintf(stderr, "%s: cannot open the corpus directory: %s\n",
			dir, strerror(errno));
		return -1;
	}
	for (errno = 0; (d = readdir(dp)); errno = 0) {
		n = replay_entry(dir, d->d_name);
		if (n < 0)
			ret = -1;
		else
			here += (unsigned int)n;
	}
	if (errno) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		ret = -1;
	}
	closedir(dp);
	if (!here) {
		fprintf(stderr,
			"%s: no input files (an empty corpus tests nothing)\n",
			dir);
		ret = -1;
	}
	*count += here;
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
	if (ret)
		fprintf(stderr, "%s: FAILED\n", argv[0]);
	return ret ? 1 : 0;
}
