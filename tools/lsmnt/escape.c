// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's list and tree text escaping: a value's bytes as they are
 * printed, and its width on a terminal (the other formats: escape.h).
 */
#include <langinfo.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "cli.h"
#include "escape.h"

bool locale_utf8(void)
{
	static int utf8 = -1;

	if (utf8 < 0) {
		cli_locale(); /* set here at its first need */
		utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	}
	return utf8;
}

/*
 * list/tree text: write @s escaped into @ob (NULL: only measure) and return
 * its width in terminal columns.
 */
size_t put_safe(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {'\\'};
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), width = 0;

	while (len) {
		size_t run = plain_run(p, len, true, stop);

		if (run) {
			if (ob)
				outbuf_write(ob, p, run);
			width += run;
			p += run;
			len -= run;
			continue;
		}
		if (*p == '\\' && p[1] != 'x') {
			if (ob)
				outbuf_putc(ob, '\\');
			width++;
			p++;
			len--;
			continue;
		}
		if (*p < 0x80 || !locale_utf8()) {
			put_hex(ob, *p++);
			len--;
			width += 4;
			continue;
		}
		{
			mbstate_t st;
			wchar_t wc;
			size_t n;

			memset(&st, 0, sizeof(st));
			n = mbrtowc(&wc, (const char *)p, len, &st);
			if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
				put_hex(ob, *p++);
				len--;
				width += 4;
			} else if (!iswprint((wint_t)wc)) {
				for (size_t i = 0; i < n; i++)
					put_hex(ob, p[i]);
				width += 4 * n;
				p += n;
				len -= n;
			} else {
				int w = wcwidth(wc);

				if (ob)
					outbuf_write(ob, p, n);
				width += w > 0 ? (size_t)w : 0;
				p += n;
				len -= n;
			}
		}
	}
	return width;
}
