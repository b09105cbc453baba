package report

// pageTemplate is report.html. Everything is inline: no <link>, no script
// file, no url(...) to anything but the page itself. Its one inline script
// (labelScript) orders the documents tables and keeps the researcher's
// marks.
const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.1em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.url { max-width: 28em; overflow-wrap: anywhere; }
dl.spec { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.spec dt { font-weight: 600; }
dl.spec dd { margin: 0; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; background: #fff; }
figcaption { font-size: 0.9em; color: #555; }
.muted { color: #777; }
.warn { color: #a40; }
.howto { background: #f8f8f0; border-left: 4px solid #cc9; padding: 0.5em 1em; }
.labelling { background: #f4f7fb; border-left: 4px solid #9bc; padding: 0.3em 1em; }
td.mark { white-space: nowrap; }
button.mark { font: inherit; font-size: 0.8em; padding: 0 0.4em; margin: 0 0.15em 0 0; border: 1px solid #bbb; border-radius: 3px; background: #fff; color: #333; cursor: pointer; }
button.mark.on[data-grade="1"] { background: #2a7a3a; border-color: #2a7a3a; color: #fff; }
button.mark.on[data-grade="0"] { background: #b33; border-color: #b33; color: #fff; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Generated}}<p class="muted">Generated {{.Generated}}.</p>{{end}}

<section class="howto" id="how-to-read">
<h2>How to read this report</h2>
<p>Each run extracted a collection from the same archive with the same specification but a different
strategy for choosing which URL to read next: <b>ctf</b> (topic and time, the paper's CT-F), <b>cf</b> (topic only),
<b>tf</b> (time only) and <b>unfocused</b> (breadth-first, no relevance). Every extracted document is scored
afterwards on its own content with the topical relevance <i>topic_r</i> (0 to 1), whatever strategy found it.
The <b>accumulated relevance</b> is the running sum of topic_r over the collection in the order it was built:
a good strategy climbs steeply at first and flattens when relevant documents run out, so a higher curve
and a larger <b>area under the curve</b> are better. <b>URLs considered</b> counts every URL the run
learned of (read, missing or still waiting in the frontier); focused runs usually discover more, as in the
paper's Table 2. <b>Missing</b> URLs were wanted but had no usable capture in the archive.
{{if .Labels}}With labelled data, <b>P@n</b> (precision, or harvest rate) is the share of the first n documents that are
labelled relevant, <b>R@n</b> (recall) the share of all relevant URLs found among them, and nDCG weights
them by their grade; n = R is the number of relevant URLs.{{end}}</p>
</section>

<h2 id="spec">Specification</h2>
<dl class="spec">
<dt>Name</dt><dd>{{.Spec.Name}}</dd>
{{if .Spec.Description}}<dt>Description</dt><dd>{{.Spec.Description}}</dd>{{end}}
<dt>Event</dt><dd>{{.Spec.EventStart}} to {{.Spec.EventEnd}} (end inclusive)</dd>
<dt>Lead time</dt><dd>{{.Spec.LeadTime}} (half-life before the event)</dd>
<dt>Cool-down time</dt><dd>{{.Spec.Cooldown}} (half-life after the event)</dd>
<dt>Keywords</dt><dd>{{if .Spec.Keywords}}{{range $i, $k := .Spec.Keywords}}{{if $i}}; {{end}}{{$k}}{{end}}{{else}}<span class="muted">none</span>{{end}}</dd>
<dt>Reference documents</dt><dd>{{.Spec.References}}</dd>
<dt>Seeds</dt><dd>{{if .Spec.SeedsFromReferences}}from the outlinks of the reference documents{{else}}{{.Spec.Seeds}}{{end}}</dd>
<dt>Strategy</dt><dd>{{range $i, $s := .Spec.Strategies}}{{if $i}}, {{end}}{{$s}}{{end}} (alpha {{f2 .Spec.Alpha}} for ctf)</dd>
<dt>Target size</dt><dd>{{.Spec.TargetSize}} documents, {{.Spec.BatchSize}} per round</dd>
</dl>

<h2 id="runs">Runs</h2>
<table class="runs">
<thead><tr><th>run</th><th>strategy</th><th>documents</th><th>accumulated relevance</th><th>mean topic_r</th><th>area under curve</th><th>area, first {{.CommonN}} docs</th><th>URLs considered</th><th>ratio vs unfocused</th><th>missing</th><th>rounds</th></tr></thead>
<tbody>
{{range .Runs}}<tr><td>{{.Name}}</td><td>{{.Strategy}}</td><td class="n">{{.Documents}}</td><td class="n">{{f2 .Total}}</td><td class="n">{{f3 .Mean}}</td><td class="n">{{f1 .Area}}</td><td class="n">{{f1 .AreaCommon}}</td><td class="n">{{.URLsConsidered}}</td><td class="n">{{f2 .RatioVsUnfocused}}</td><td class="n">{{.Missing}}</td><td class="n">{{.Rounds}}</td></tr>
{{end}}</tbody>
</table>
{{range .Runs}}{{if .Starvation}}<p class="warn"><b>{{.Name}} starved:</b> {{.Starvation}}.</p>
{{end}}{{end}}
{{if .Labels}}
<h3 id="labels">Against labelled data</h3>
<p>{{.Labels}}</p>
<table class="labels">
<thead><tr><th>run</th>{{range .Cutoffs}}<th>P@{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Runs}}<tr><td>{{.Name}}</td>{{range .At}}<td class="n">{{f3 .Precision}}{{if .Short}}*{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<table class="labels">
<thead><tr><th>run</th>{{range .Cutoffs}}<th>R@{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Runs}}<tr><td>{{.Name}}</td>{{range .At}}<td class="n">{{f3 .Recall}}{{if .Short}}*{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<table class="labels">
<thead><tr><th>run</th>{{range .Cutoffs}}<th>nDCG@{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Runs}}<tr><td>{{.Name}}</td>{{range .At}}<td class="n">{{f3 .NDCG}}{{if .Short}}*{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p class="muted">* the run has fewer documents than n; the absent ones count as not relevant.</p>
{{end}}

{{template "archives" .}}
<h2 id="plots">Plots</h2>
{{range .Plots}}<figure>
{{svg .SVG}}
<figcaption>{{.Caption}}{{if .Files}} Files: {{range $i, $f := .Files}}{{if $i}}, {{end}}{{$f}}{{end}}.{{end}}</figcaption>
</figure>
{{end}}

{{with .Table3}}
<h2 id="table3">Effect of the temporal parameters and of keywords</h2>
<p>Ratio of the accumulated relevance of a run with the specification's lead and cool-down times to one with a
fixed half-life of {{.FixedHalfLife}} for both (time), and of a run with the keywords to one without (keywords),
all else equal, as in the paper's Table 3. Above 1: the parameter helps. In brackets: the ratio after the
same number of documents for both runs.</p>
<table class="table3">
<thead><tr><th>event</th>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr><td>{{.Event}}</td>{{range .Cells}}<td class="n" title="{{f2 .With}} / {{f2 .Without}} ({{.WithDocs}} / {{.WoDocs}} documents){{if .Note}}: {{.Note}}{{end}}">{{f2 .Ratio}} ({{f2 .RatioCommon}})</td>{{end}}</tr>
{{end}}<tr><th>Average</th>{{range .Average}}<th class="n">{{f2 .}}</th>{{end}}</tr>
</tbody>
</table>
{{end}}

{{with .Options}}
<h2 id="options">Focusing beyond the paper</h2>
<p>Each row is one extraction of {{.Spec}} with one focusing option of the related systems (specification
fields in docs/specification.md), everything else as specified. Precision at R (R = {{.R}} relevant URLs) and
recall at {{.N}} against the labels; accumulated relevance over each run and, in brackets, after
{{.CommonN}} documents (comparable between rows). Ratios: precision against the paper's ctf, recall against
the unfocused run. The row oracle, when run, is not a method but the ceiling: a crawl of the same link graph
that knows the labels before it fetches a page.</p>
<table class="options">
<thead><tr><th>variant</th><th>what it sets</th><th>documents</th><th>P@R</th><th>× ctf</th><th>R@{{.N}}</th><th>× unfocused</th><th>accumulated relevance</th><th>listing pages followed</th></tr></thead>
<tbody>
{{range .Rows}}<tr{{if .Best}} class="best"{{end}}><td>{{.Name}}</td><td>{{.Description}}</td><td class="n">{{.Documents}}</td><td class="n">{{f3 .PrecisionAtR}}</td><td class="n">{{f2 .PrecisionVsCTF}}</td><td class="n">{{f3 .RecallAtN}}</td><td class="n">{{f2 .RecallVsUn}}</td><td class="n">{{f2 .Accumulated}} ({{f2 .AccumulatedCommon}})</td><td class="n">{{.Listings}}</td></tr>
{{end}}</tbody>
</table>
{{if .Templates}}
<h3 id="templates">By site template</h3>
<p>Precision at R<sub>t</sub> over each run's documents from the hosts of template t (R<sub>t</sub> its relevant
labels) · recall at {{.N}} of those labels. A method that cannot cross a template's layout scores 0 there.</p>
<table class="options">
<thead><tr><th>variant</th>{{range .Templates}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{if .Best}} class="best"{{end}}><td>{{.Name}}</td>{{range .ByTemplate}}<td class="n">{{f3 .PrecisionAtR}} · {{f3 .RecallAtN}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}
{{end}}

<h2 id="details">Documents and missing URLs per run</h2>
{{if .ReplayNote}}<p class="replay-note">{{.ReplayNote}}</p>
{{end}}{{if .Details}}<section class="labelling" id="labelling">
<p>Order: <label><input type="radio" name="order" value="crawl" autocomplete="off" checked> crawl order</label>
<label><input type="radio" name="order" value="ranked" autocomplete="off"> by relevance</label>
<span class="muted">(crawl order: as the run collected them, the order of its documents.jsonl; by relevance: the run's
relevance score, highest first, ties by topic_r. Each run lists its documents of highest topic_r and those of highest
relevance: by relevance, its list begins with the run's documents of highest relevance score.)</span></p>
<p>Mark each document <b>relevant</b> or <b>not relevant</b> with one click; a second click on the active mark clears it.
When this report is served by <code>recrawl serve</code>, each mark is written at once to the labels file (labels.tsv in
the report's folder, unless serve was given another with --labels), in the format <code>recrawl eval --labels</code> reads,
and the marks show again when the page is reloaded. Opened as a file, the page keeps the marks in this browser
(localStorage): save them as labels.tsv with the download link.</p>
<p id="labels-status" class="muted" role="status"></p>
<p><a id="labels-download" download="labels.tsv" hidden>download labels.tsv</a></p>
</section>
{{end}}{{range $d := .Details}}
<h3 id="run-{{.Name}}">{{.Name}}: {{len .Top}} documents, its top {{.TopN}} by topic_r and its top {{.TopN}} by relevance</h3>
<table class="top" data-run="{{.Name}}">
<thead><tr><th>#</th><th>mark</th><th>URL</th><th>title</th><th>document time (source)</th><th>topic_r</th><th>temp_r</th><th>ttr</th><th>relevance</th><th>depth</th><th>path</th><th>round</th>{{if $.Labels}}<th>grade</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr data-url="{{.URL}}" data-crawl="{{.Crawl}}" data-ranked="{{.Ranked}}"><td class="n">{{.Crawl}}</td><td class="mark"><button type="button" class="mark" data-grade="1" aria-pressed="false">relevant</button><button type="button" class="mark" data-grade="0" aria-pressed="false">not relevant</button></td><td class="url">{{if .ReplayURL}}<a href="{{.ReplayURL}}" title="replay the archived page ({{.Timestamp}})">{{.URL}}</a>{{else}}{{.URL}}{{end}}</td><td>{{.Title}}</td><td>{{.DocTime}} ({{.DocTimeSource}})</td><td class="n">{{f3 .TopicR}}</td><td class="n">{{f3 .TempR}}</td><td class="n">{{f3 .TTR}}</td><td class="n">{{f3 .Relevance}}</td><td class="n">{{.Depth}}</td><td>{{.Path}}</td><td class="n">{{.Round}}</td>{{if $.Labels}}<td class="n">{{.Grade}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<h3>{{.Name}}: {{.MissingTotal}} missing URLs</h3>
{{if .Reasons}}<table class="reasons">
<thead><tr><th>reason</th><th>URLs</th></tr></thead>
<tbody>
{{range .Reasons}}<tr><td>{{.Code}}</td><td class="n">{{.Count}}</td></tr>
{{end}}</tbody>
</table>
<table class="missing">
<thead><tr><th>URL</th><th>priority</th><th>round</th><th>path</th><th>reason</th></tr></thead>
<tbody>
{{range .Missing}}<tr><td class="url">{{.URL}}</td><td class="n">{{f3 .Priority}}</td><td class="n">{{.Round}}</td><td>{{.Path}}</td><td>{{.ReasonCode}}{{if .Reason}}: {{.Reason}}{{end}}</td></tr>
{{end}}</tbody>
</table>
{{if gt .MissingTotal (len .Missing)}}<p class="muted">The {{len .Missing}} of highest priority are shown.</p>{{end}}
{{else}}<p class="muted">No missing URLs listed.</p>{{end}}
{{end}}
{{if .Details}}<script>
` + labelScript + `
</script>
{{end}}</body>
</html>
`
