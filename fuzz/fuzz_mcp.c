/*
 * fuzz_mcp.c -- libFuzzer target: the MCP server loop (mcp.h), fed the
 * fuzz input as its standard input, as a hostile client would write it.
 *
 * Each fuzz input is a fresh session (the essay's seed, the unsafe and
 * sandbox paths: the jail path forks) and one mcp_loop() over the input
 * read from memory, its replies written to a memory stream that is thrown
 * away.  The line cap is small, so that messages past it (and the scan for
 * their id) are reached; a first byte chooses whether the session was
 * initialized with a handshake by a message prepended to the input, so
 * that both eras' handlers are reached without the fuzzer having to find
 * the handshake itself.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/mcp.h"
#include "session/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char handshake[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
    "\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
    "\"capabilities\":{}}}\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session_opts so;
	struct mcp_opts mo;
	struct session *s;
	char *buf, *outbuf = NULL;
	size_t len = 0, outlen = 0;
	FILE *in, *out;

	if (size == 0)
		return 0;
	buf = malloc(sizeof handshake + size);
	if (buf == NULL)
		return 0;
	if (data[0] & 1) {
		memcpy(buf, handshake, sizeof handshake - 1);
		len = sizeof handshake - 1;
	}
	memcpy(buf + len, data + 1, size - 1);
	len += size - 1;
	in = fmemopen(buf, len ? len : 1, "r");
	out = open_memstream(&outbuf, &outlen);
	if (in == NULL || out == NULL || len == 0) {
		if (in != NULL)
			fclose(in);
		if (out != NULL)
			fclose(out);
		free(outbuf);
		free(buf);
		return 0;
	}
	memset(&so, 0, sizeof so);
	so.paths = PATH_BIT(PATH_UNSAFE) | PATH_BIT(PATH_SANDBOX);
	s = session_new(&so);
	memset(&mo, 0, sizeof mo);
	mo.paths = so.paths;
	mo.max_line = 512;
	(void)mcp_loop(s, &mo, in, out);
	session_free(s);
	fclose(in);
	fclose(out);
	free(outbuf);
	free(buf);
	return 0;
}
