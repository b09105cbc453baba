package document

import "testing"

func TestSamePagedList(t *testing.T) {
	for _, c := range []struct {
		page, link string
		want       bool
	}{
		{"http://www.news.example/tag/swine-flu/", "http://news.example/tag/swine-flu/?page=2", true},
		{"http://news.example/tag/swine-flu/?page=2", "http://news.example:80/tag/swine-flu/?page=3", true},
		{"http://news.example/tag/swine-flu/?page=3", "http://news.example/tag/swine-flu/", true},
		{"http://news.example/politics/", "http://news.example/politics/page/2/", true},
		{"http://news.example/search?q=flu&start=10", "http://news.example/search?start=20&q=flu", true},
		{"http://news.example/", "http://news.example/?seite=2", true},
		// Not pagination: the same page, another list, an article.
		{"http://news.example/tag/swine-flu/?page=2", "http://news.example/tag/swine-flu/?page=2", false},
		{"http://news.example/tag/swine-flu/", "http://www.news.example/tag/swine-flu", false},
		{"http://news.example/tag/swine-flu/", "http://news.example/tag/volcano/?page=2", false},
		{"http://news.example/health/", "http://news.example/health/flu-vaccine-ordered-1a.html", false},
		{"http://news.example/article.php?section=health", "http://news.example/article.php?section=health&id=7", false},
		{"http://news.example/blog/", "http://news.example/blog/?p=123", false},
		{"http://news.example/tag/flu/?page=next", "http://news.example/tag/flu/", false},
		{"http://other.example/tag/swine-flu/", "http://news.example/tag/swine-flu/?page=2", false},
		{"%zz", "http://news.example/", false},
	} {
		if got := SamePagedList(c.page, c.link); got != c.want {
			t.Errorf("SamePagedList(%s, %s) = %v, want %v", c.page, c.link, got, c.want)
		}
	}
}
