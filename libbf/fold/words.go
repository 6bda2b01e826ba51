package fold

// functionWords are the English and French words a query drops (the index keeps them).
// Besides the usual function words, the list holds words the Porter stemmer folds onto one
// of them, such as having, doing, ones or ours. Entries are lower case and NFKC.
var functionWords = setOf(
	// English.
	"a", "about", "am", "an", "and", "another", "any", "are", "as", "at", "be", "been",
	"being", "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had",
	"has", "have", "having", "he", "her", "hers", "him", "his", "how", "i", "if", "in",
	"into", "is", "it", "its", "me", "might", "must", "my", "not", "of", "on", "one", "ones",
	"or", "other", "others", "our", "ours", "please", "shall", "she", "should", "so", "than",
	"that", "the", "their", "theirs", "them", "there", "these", "they", "this", "those", "to",
	"us", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "whose", "why",
	"will", "with", "would", "yet", "you", "your", "yours",
	// French.
	"ai", "au", "autre", "autres", "aux", "avec", "c", "ce", "ces", "cet", "cette", "d",
	"dans", "de", "des", "donc", "du", "elle", "elles", "en", "est", "et", "eu", "eux", "il",
	"ils", "j", "je", "l", "la", "le", "les", "leur", "leurs", "lui", "m", "ma", "mais", "me",
	"mes", "moi", "mon", "n", "ne", "nos", "notre", "nous", "on", "ont", "ou", "où", "par",
	"pas", "pour", "pourquoi", "qu", "quand", "que", "quel", "quelle", "quelles", "quels",
	"qui", "quoi", "s", "sa", "se", "ses", "si", "son", "sont", "sur", "t", "ta", "te", "tes",
	"toi", "ton", "tu", "un", "une", "vos", "votre", "vous", "y", "à", "été", "être",
)

func setOf(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

// IsFunctionWord reports whether word, compared in lower case, is one of the English or
// French function words a query drops.
func IsFunctionWord(word string) bool {
	_, ok := functionWords[lower(word)]
	return ok
}
