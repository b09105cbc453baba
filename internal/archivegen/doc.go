// Package archivegen generates a synthetic web archive that behaves like a
// real one, for the demo, the tests of the extraction and the benchmarks.
//
// # The synthetic web
//
// About 40 hosts (more for large archives: 40 + pages/25,000), each with an
// editorial character (news, regional news, blogs, sports, science, tech,
// food, finance, and a wiki in two language editions), a language (English
// or German), a URL layout (/2009/09/27/slug.html, /politik/slug-a-123.html,
// /article.php?section=…&id=…, /2009/09/slug/, /wiki/Title), a page
// template (HTML5, XHTML div layout, 2005-style tables) and a charset:
// German hosts serve UTF-8 or ISO-8859-1, the latter declared either in the
// HTTP header only or in a <meta http-equiv> tag only.
//
// Articles belong to topics. Background topics (politics, business, sport,
// science, technology, food, travel, culture, health, local news) make up
// about two thirds of them; each event (a 2009 federal election, a volcano
// eruption with an ash cloud, a football World Cup, a nuclear accident, a
// bank collapse, a flu pandemic, an oil spill, the 2012 Olympics: fictional
// names, plausible shapes) has 4.5% of the articles about it (grade 2) and
// 1.5% background articles that mention it (grade 1). Every topic has its
// own vocabulary in both languages; text is made of templated sentences that
// mix topic words with generic ones, so topics overlap the way real ones do
// (election vs. politics, World Cup vs. league football, ash cloud vs.
// travel). Articles have 300–1500 words.
//
// Event articles are published before (lead-up), during and after
// (aftermath) their event, with exponential tails given by the event's lead
// and cool-down days; background articles uniformly from 2007 to mid-2013.
// A page states its publication date in article:published_time, JSON-LD
// datePublished, <time datetime>, the URL, only a dateline in the text
// ("September 27, 2009", "27 September 2009", "27.09.2009", "5. März 2009"),
// or nowhere, depending on its host (and 8% of pages drop a source).
//
// # Pages and links
//
// Page kinds: articles, home pages, section pages and tag pages (listing
// pages: many links, little text; paginated in proportion to the host's
// output), with boilerplate: navigation, a "most read" sidebar, newsletter
// and ad boxes, a footer with partner sites, an analytics script, and a
// cookie banner from mid-2011. The boilerplate depends on a per-host bucket
// of 60–180 days, so it changes between captures but not within a bucket.
//
// An article's text links to related articles with topical locality (event
// articles link mostly to the same event, on the same host or across hosts,
// mostly in the same language, mostly to articles published around the same
// time) and to articles that were never archived. Hrefs come in the forms
// real pages use: absolute, root-relative, document-relative against
// <base href>, protocol-relative, through an old URL that redirects
// (/go/ID), and forms that only match after SURT canonicalisation
// (http://WWW.HOST.COM:80/path?b=2&a=1#top for http://host.com/path?a=1&b=2).
// Listing pages, the sidebar and the footer add navigation links; share
// buttons, comment, print and login links point outside the archive.
//
// # Site templates
//
// With Config.Templates (genarchive --templates) the hosts take the site
// templates of real news sites in turn (Template): the classic layout above;
// related stories in an <aside> or sidebar box after the article, whose text
// has no links; a teaser grid (image link, headline, one sentence) under the
// article; a footer link farm with the related stories and the host's newest
// articles; and the aside layout with print and AMP variants of every
// article, captured, with a canonical link to it. Their navigation menus
// also name the events the host covers (tag pages). labels.tsv gets a
// template column, so an evaluation can break its results down by template.
// Without it every host has the classic template and the output is
// byte-identical to what it was before templates existed.
//
// # Captures
//
// Every article is captured 1–4 times (WARC-Date after publication, over
// several years; re-crawls days or months apart). A capture whose payload
// equals the previous one (same boilerplate bucket) is written as a revisit
// record (profile identical-payload-digest, with WARC-Refers-To,
// WARC-Refers-To-Target-URI and WARC-Refers-To-Date). 5% of articles with
// several captures are gone (404) at the last one; 8% have an old URL that
// answers 301 (captured just before the target); www hosts answer 301 from
// the bare name; some never-archived articles have a 404 capture (dead
// links); 3% of payloads are sent with Content-Encoding: gzip; style sheets
// and JPEG images are captured too (to be skipped by the extraction).
//
// # Output
//
// WARC files (WARC/1.1 by default, or 1.0) of at most MaxFileSize bytes,
// named PREFIX-YYYYMMDDhhmmss-NNNNN.warc.gz after their first record, each
// starting with a warcinfo record, one gzip member per record (so an index
// can address records by offset), with WARC-Payload-Digest and
// WARC-Block-Digest (SHA-1, base32). Records are not sorted: articles are
// processed in blocks of ids whose captures are interleaved by time with a
// share of the listing pages, so hosts and times interleave as in a crawl.
// Besides: labels.tsv (see LabelsHeader: one line per archived article with
// its event and grade, its redirecting alias, true publication time and
// where the page states it), specs/EVENT.yaml (a collection specification
// per event with the field names of method.md §1: reference texts in English
// and German generated from the event vocabulary but with their own random
// stream, keywords per language, the event interval, lead and cool-down
// times, seeds that are archived home, section, tag and article URLs) and
// summary.json.
//
// # Scale, speed, determinism
//
// Config.Pages sets the number of article pages; everything else scales
// along. Config.TargetBytes instead estimates the page count from trial
// renders and stops at the first block boundary past the target. Nothing is
// stored per page: a page is a pure function of (seed, page id). Article ids
// are spread over topics by a repeating pattern of 4096 slots, so the k-th
// article of a topic, its publication date (monotone in k) and "the newest
// articles of host h in topic t before time T" are computed directly, and
// link targets need no table. Memory stays constant (about 100 MB).
//
// The same seed and size give byte-identical files whatever the number of
// workers: record ids are derived from the seed, dates are fixed, nothing
// depends on map order or the clock, and records are rendered in parallel but
// written in plan order. Records are compressed with
// github.com/klauspost/compress/gzip (level 1 by default: about 2.5 times
// faster than compress/gzip at level 6 and 10% larger). Measured: about 27
// MB of compressed WARC output per CPU-second (about 2,000 article pages
// with their other captures), half of it spent in compression.
//
// The WARC writer is written here rather than taken from gowarc, whose
// writer stamps warcinfo records with the clock, generates random record
// ids and names files by creation time; gowarc's reader checks the output in
// the tests.
package archivegen
