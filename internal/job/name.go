package job

// NameMatch reports whether name matches a -J pattern: '*' matches any run
// of characters, anywhere in the pattern, and every other character matches
// itself (job names hold brackets and parentheses, which are not special).
func NameMatch(pattern, name string) bool {
	// Greedy matching, backtracking to the last star.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == name[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
