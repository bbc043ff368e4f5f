// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the loader of a saved result document (--report
 * FILE.json): the input is the file. rp_report_load takes a path, so the
 * input is written to a file of this process under /dev/shm (or /tmp)
 * first. A document that loads is rendered by every reporter, as --report
 * does: the JSON document, the text summary, the CSV and the SVG plot,
 * each to /dev/null (a --matrix document: its text and CSV, which must
 * hold no raw ESC, and its heatmap). Then the
 * document rdmaperf wrote is loaded again: it must load, and give the same
 * document back (the loader's promise for what rp_report_json_doc writes).
 *
 * Built with clang -fsanitize=fuzzer for fuzzing, or with replay.c as a plain
 * program that CTest runs over the seed corpus.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/matrix/matrix.h"
#include "report/report.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void remove_doc(void)
{
	unlink(path);
}

/* The file of this process that holds the document being loaded, removed
 * when the process exits. */
static const char *doc_path(void)
{
	if (!path[0]) {
		snprintf(path, sizeof(path), "%s/rp-fuzz-report.%ld.json",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm",
			 (long)getpid());
		atexit(remove_doc);
	}
	return path;
}

static int put_file(const void *data, size_t size)
{
	FILE *f = fopen(doc_path(), "wb");
	size_t n;

	if (!f)
		return -errno;
	n = size ? fwrite(data, 1, size, f) : 0;
	if (fclose(f) || n != size)
		return -EIO;
	return 0;
}

/* Load what is in the file; on success its rendering into *@text. */
static int load_render(struct rp_report_doc *doc, char **text)
{
	struct rp_err why = { "" };
	int err = rp_report_load(doc_path(), doc, &why);

	*text = NULL;
	if (err) {
		FUZZ_CHECK(why.msg[0], "a refused document says why");
		FUZZ_CHECK(!doc->res && !doc->n, "a refused document is freed");
		return err;
	}
	*text = fuzz_render(&doc->test, doc->res, doc->n);
	return 0;
}

/* What rdmaperf wrote of the document loads back to the same document. */
static void check_fixed_point(const char *text)
{
	struct rp_report_doc doc;
	char *again = NULL;

	if (put_file(text, strlen(text)))
		return;
	FUZZ_CHECK(!load_render(&doc, &again), "our own document loads");
	if (again && strcmp(again, text)) {
		fprintf(stderr, "-- written --\n%s\n-- written again --\n%s\n",
			text, again);
		FUZZ_CHECK(false, "our own document loads back unchanged");
	}
	free(again);
	rp_report_doc_free(&doc);
}

/* A --matrix document: loaded (or refused, saying why) and drawn by each
 * renderer. Return: -EMEDIUMTYPE when the input is not one. */
static int matrix_render(void)
{
	struct rp_err why = { "" };
	cJSON *m = NULL;
	int err = rp_matrix_load(doc_path(), &m, &why);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (err == -EMEDIUMTYPE)
		return err;
	if (err) {
		FUZZ_CHECK(why.msg[0] && !m, "a refused matrix says why");
		return 0;
	}
	f = open_memstream(&out, &len);
	if (f) {
		rp_matrix_text(f, m);
		rp_matrix_csv(f, m);
		fclose(f);
		/* the document's strings were made safe when it was read */
		FUZZ_CHECK(!memchr(out, 0x1b, len), "no ESC reaches the text");
		free(out);
	}
	rp_matrix_plot("/dev/null", m, &why);
	cJSON_Delete(m);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_report_doc doc;
	struct rp_err why = { "" };
	char *text;

	if (put_file(data, size) || matrix_render() != -EMEDIUMTYPE)
		return 0;
	if (load_render(&doc, &text))
		return 0;
	rp_report_plot("/dev/null", &doc.test, doc.res, doc.n, &why);
	rp_report_doc_free(&doc);
	if (text)
		check_fixed_point(text);
	free(text);
	return 0;
}
