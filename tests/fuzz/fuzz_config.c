// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: config_load_text() then config_finish() (oomguard.conf: an administrator's
 * file, the one input of the daemon written by hand). Its promises: 0 or -EINVAL; an error names
 * the file and the line ("NAME:LINE: reason"); a file accepted then either finishes or says why;
 * nothing leaks (config_release() frees what either took). */
#include "daemon/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_buf(data, size);
	char err[512] = "";
	struct config c;
	int r, line = 0;

	config_defaults(&c);
	r = config_load_text(&c, "fuzz.conf", b, size, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r < 0) {
		FUZZ_CHECK(sscanf(err, "fuzz.conf:%d: ", &line) == 1 && line >= 1);
		FUZZ_CHECK(strlen(err) > strlen("fuzz.conf:1: "));
	} else {
		FUZZ_CHECK(err[0] == '\0');
		r = config_finish(&c, err, sizeof(err));
		FUZZ_CHECK(r == 0 || (r == -EINVAL && err[0]));
	}
	config_release(&c);
	free(b);
	return 0;
}
