package markdown

import "testing"

func TestMarkdownEscapes(t *testing.T) {
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"text: html tag", Text("<img src=x onerror=alert(1)>"), `\<img src=x onerror=alert(1)\>`},
		{"text: emphasis, link, image", Text("**b** [l](http://x) ![i](y)"), `\*\*b\*\* \[l\](http://x) \!\[i\](y)`},
		{"text: newline starts no block", Text("a\n# h\r\n- li\rb"), `a \# h - li b`},
		{"text: backticks, pipes, entity", Text("`x` | &amp; ~s~ $m$ \\"), "\\`x\\` \\| \\&amp; \\~s\\~ \\$m\\$ \\\\"},
		{"text: plain stays", Text("source.verify.sshKeys main@sha1:1a2b3c4"), "source.verify.sshKeys main@sha1:1a2b3c4"},
		{"code: plain", Code("Deployment/app/web"), "`Deployment/app/web`"},
		{"code: inner backtick", Code("a`b"), "``a`b``"},
		{"code: run of three", Code("x```y"), "````x```y````"},
		{"code: leading backtick padded", Code("`x"), "`` `x ``"},
		{"code: spaces kept", Code(" x "), "`  x  `"},
		{"code: newline", Code("a\n</code><script>"), "`a </code><script>`"},
		{"code: empty", Code(""), "` `"},
		{"cell: pipe in code", Cell(Code("a|b")), "`a\\|b`"},
		{"fence: plain", Fence("diff", "-a\n+b\n"), "```diff\n-a\n+b\n```\n"},
		{"fence: longer than content", Fence("diff", "```\n</pre>\n````"), "`````diff\n```\n</pre>\n````\n`````\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got  %q\nwant %q", tc.got, tc.want)
			}
		})
	}
}
