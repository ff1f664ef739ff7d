package expr

import (
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF     tokKind = iota
	tIdent           // a bare name or keyword: a letter, then letters, digits, '_'
	tName            // #placeholder
	tValue           // :placeholder
	tNumber          // a list index
	tLParen          // (
	tRParen          // )
	tLBrack          // [
	tRBrack          // ]
	tComma           // ,
	tDot             // .
	tEq              // =
	tNe              // <>
	tLt              // <
	tLe              // <=
	tGt              // >
	tGe              // >=
	tPlus            // +
	tMinus           // -
	tIllegal         // any other character, one per token
)

type token struct {
	kind       tokKind
	start, end int // byte offsets into the source
}

// lex splits src into tokens the way DynamoDB's lexer does, as far as its
// error messages reveal: names start with a letter ("_a" is the token "_"
// then "a"), placeholders are '#' or ':' followed by letters, digits or
// '_', a number starting with 0 is just "0" ("01" is "0" then "1"), and
// any other character is a token of its own. The last token is tEOF.
func lex(src string) []token {
	toks := make([]token, 0, len(src)/3+2)
	i := 0
	for i < len(src) {
		c := src[i]
		start := i
		var k tokKind
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case isLetter(c):
			i++
			for i < len(src) && isWordChar(src[i]) {
				i++
			}
			k = tIdent
		case c == '#' || c == ':':
			i++
			for i < len(src) && isWordChar(src[i]) {
				i++
			}
			if i == start+1 {
				k = tIllegal
			} else if c == '#' {
				k = tName
			} else {
				k = tValue
			}
		case c == '0':
			i++
			k = tNumber
		case c >= '1' && c <= '9':
			i++
			for i < len(src) && src[i] >= '0' && src[i] <= '9' {
				i++
			}
			k = tNumber
		case c == '<':
			i++
			k = tLt
			if i < len(src) && src[i] == '>' {
				i++
				k = tNe
			} else if i < len(src) && src[i] == '=' {
				i++
				k = tLe
			}
		case c == '>':
			i++
			k = tGt
			if i < len(src) && src[i] == '=' {
				i++
				k = tGe
			}
		default:
			i++
			switch c {
			case '(':
				k = tLParen
			case ')':
				k = tRParen
			case '[':
				k = tLBrack
			case ']':
				k = tRBrack
			case ',':
				k = tComma
			case '.':
				k = tDot
			case '=':
				k = tEq
			case '+':
				k = tPlus
			case '-':
				k = tMinus
			default:
				k = tIllegal
				if c >= utf8.RuneSelf {
					_, size := utf8.DecodeRuneInString(src[start:])
					i = start + size
				}
			}
		}
		toks = append(toks, token{kind: k, start: start, end: i})
	}
	return append(toks, token{kind: tEOF, start: len(src), end: len(src)})
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordChar(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }

// keyword reports whether an identifier token is the given keyword;
// keywords are case-insensitive ("sEt", "BeTwEeN").
func keyword(text, kw string) bool { return strings.EqualFold(text, kw) }

// isKeyword reports whether text is a word of the grammar, which cannot be
// used as an attribute name even where a name is expected.
func isKeyword(text string) bool {
	switch strings.ToLower(text) {
	case "and", "or", "not", "between", "in", "set", "remove", "add", "delete":
		return true
	}
	return false
}
