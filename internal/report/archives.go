package report

import "html/template"

// The share of each archive, for runs that read several archives at once
// (extract --index NAME=… --archive NAME=…): how many of a run's documents
// came from each archive. The section is its own template, "archives",
// included by the page; a page without such runs shows nothing of it.

// ArchiveShare is one run that read several archives.
type ArchiveShare struct {
	Run       string
	Documents int // the run's documents
	Archives  []ArchiveCount
}

// ArchiveCount is the documents a run took from one archive.
type ArchiveCount struct {
	Name      string
	Documents int
	Percent   float64 // of the run's documents; NaN for a run without documents
}

const archivesTemplate = `{{define "archives"}}{{if .Archives}}
<h2 id="archives">Archives</h2>
<p>Runs that read several archives at once: captures of a URL from all of them competed for the collection,
ties going to the archive named first. The share of each archive in the run's documents:</p>
<table class="archives">
<thead><tr><th>run</th><th>archive</th><th>documents</th><th>share</th></tr></thead>
<tbody>
{{range $r := .Archives}}{{range $i, $a := .Archives}}<tr>{{if not $i}}<td rowspan="{{len $r.Archives}}">{{$r.Run}} ({{$r.Documents}} documents)</td>{{end}}<td>{{$a.Name}}</td><td class="n">{{$a.Documents}}</td><td class="n">{{f1 $a.Percent}}%</td></tr>
{{end}}{{end}}</tbody>
</table>
{{end}}{{end}}`

func init() {
	template.Must(page.New("archives").Parse(archivesTemplate))
}
