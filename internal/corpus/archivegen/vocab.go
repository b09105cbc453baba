package archivegen

import "strings"

// Languages of the synthetic web. Index 0 is English, 1 is German.
const (
	langEN = 0
	langDE = 1
)

var langCodes = [2]string{"en", "de"}

// wordList is a "|"-separated list, split once at start-up.
func wordList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

// verb is one verb in the two forms the sentence templates use: English
// past tense and base form, German past participle and infinitive.
type verb struct{ past, base string }

func verbList(s string) []verb {
	var out []verb
	for _, p := range wordList(s) {
		past, base, ok := strings.Cut(p, "/")
		if !ok {
			base = past
		}
		out = append(out, verb{past, base})
	}
	return out
}

// vocab is the vocabulary of one topic (or the generic vocabulary) in one
// language. German noun phrases carry their article in the nominative.
type vocab struct {
	name     string   // event name as a noun phrase ("the eruption of Hrafnfell"), or the section title
	nouns    []string // noun phrases
	entities []string // people and organisations
	places   []string
	verbs    []verb
	adjs     []string // predicative adjectives
	keywords []string // short key phrases: spec keywords, tag pages, titles
}

// vocabSrc is the source form of a vocab.
type vocabSrc struct {
	name, nouns, entities, places, verbs, adjs, keywords string
}

func (s vocabSrc) build() *vocab {
	return &vocab{
		name:     s.name,
		nouns:    wordList(s.nouns),
		entities: wordList(s.entities),
		places:   wordList(s.places),
		verbs:    verbList(s.verbs),
		adjs:     wordList(s.adjs),
		keywords: wordList(s.keywords),
	}
}

// genericSrc is the topic-neutral vocabulary that every text mixes in.
var genericSrc = [2]vocabSrc{
	langEN: {
		nouns:    "the government|the report|the meeting|the plan|the statement|the committee|the city|the officials|the company|the decision|the spokesman|the public|the authorities|the situation|the experts|the results|the proposal|the debate|the residents|the ministry|the agency|the council|the investigation|the figures|the critics|the organisers|the visitors|the schedule|the budget|the conference|the question|the process|the programme|the project|the board|the deadline|the negotiations|the interview|the region|the costs",
		entities: "a spokesman|a senior official|the mayor|local residents|an analyst|the chairman|a witness|observers|the newspaper|a representative",
		places:   "Berlin|London|Brussels|Hamburg|Munich|New York|Vienna|Zurich|Paris|Frankfurt|Cologne|Amsterdam",
		verbs:    "announced/announce|confirmed/confirm|rejected/reject|discussed/discuss|criticised/criticise|welcomed/welcome|presented/present|postponed/postpone|examined/examine|described/describe|expected/expect|supported/support|questioned/question|reviewed/review|reported/report|defended/defend|changed/change|prepared/prepare|delayed/delay|considered/consider",
		adjs:     "unclear|important|controversial|surprising|difficult|likely|significant|uncertain|remarkable|unprecedented|expensive|popular|tense|calm|disappointing|necessary|complicated",
		keywords: "on Monday|on Tuesday|on Wednesday|on Thursday|on Friday|yesterday|last week|earlier this year|in the morning|late in the evening|again|once more|for the first time|so far|this week|in recent days",
	},
	langDE: {
		nouns:    "die Regierung|der Bericht|das Treffen|der Plan|die Erklärung|der Ausschuss|die Stadt|die Behörden|das Unternehmen|die Entscheidung|der Sprecher|die Öffentlichkeit|die Lage|die Experten|die Ergebnisse|der Vorschlag|die Debatte|die Anwohner|das Ministerium|die Agentur|der Rat|die Untersuchung|die Zahlen|die Kritiker|die Veranstalter|die Besucher|der Zeitplan|der Haushalt|die Konferenz|der Verband|die Frage|das Verfahren|das Programm|das Projekt|der Vorstand|die Frist|die Verhandlungen|das Gespräch|die Region|die Kosten",
		entities: "ein Sprecher|ein hoher Beamter|der Bürgermeister|Anwohner|ein Analyst|der Vorsitzende|ein Augenzeuge|Beobachter|die Zeitung|ein Vertreter",
		places:   "Berlin|Hamburg|München|Köln|Frankfurt|Wien|Zürich|Brüssel|Stuttgart|Dresden|Leipzig|Düsseldorf",
		verbs:    "angekündigt/ankündigen|bestätigt/bestätigen|abgelehnt/ablehnen|diskutiert/diskutieren|kritisiert/kritisieren|begrüßt/begrüßen|vorgestellt/vorstellen|verschoben/verschieben|geprüft/prüfen|beschrieben/beschreiben|erwartet/erwarten|unterstützt/unterstützen|infrage gestellt/infrage stellen|überprüft/überprüfen|gemeldet/melden|verteidigt/verteidigen|geändert/ändern|vorbereitet/vorbereiten|verzögert/verzögern|erwogen/erwägen",
		adjs:     "unklar|wichtig|umstritten|überraschend|schwierig|wahrscheinlich|bedeutend|ungewiss|bemerkenswert|beispiellos|teuer|beliebt|angespannt|ruhig|enttäuschend|notwendig|kompliziert",
		keywords: "am Montag|am Dienstag|am Mittwoch|am Donnerstag|am Freitag|gestern|vergangene Woche|in diesem Jahr|am Morgen|am späten Abend|erneut|noch einmal|zum ersten Mal|bisher|in dieser Woche|in den vergangenen Tagen",
	},
}

// topicSrc is the vocabulary of one topic in both languages. For background
// topics name holds the section title.
type topicSrc struct {
	slug    string
	section [2]string // URL path segment of the section
	v       [2]vocabSrc
}

// backgroundSrc lists the off-topic subjects that make up most of the web.
var backgroundSrc = []topicSrc{
	{"politics", [2]string{"politics", "politik"}, [2]vocabSrc{
		{name: "Politics", nouns: "the parliament|the minister|the reform|the coalition|the opposition|the bill|the party leaders|the cabinet|the state election|the constitution|the lobbyists|the tax reform|the pension reform|the parliamentary group|the vote", entities: "the interior minister|the justice ministry|party chairman Klaus Reuter|MP Sarah Holm", places: "the Reichstag|Westminster|the state capital", verbs: "passed/pass|blocked/block|amended/amend|voted on/vote on|debated/debate|drafted/draft", adjs: "partisan|constitutional|divisive", keywords: "parliament|reform|minister|cabinet"},
		{name: "Politik", nouns: "das Parlament|der Minister|die Reform|die Koalition|die Opposition|der Gesetzentwurf|die Parteichefs|das Kabinett|die Landtagswahl|das Grundgesetz|die Lobbyisten|die Steuerreform|die Rentenreform|die Fraktion|die Abstimmung", entities: "der Innenminister|das Justizministerium|Parteichef Klaus Reuter|die Abgeordnete Sarah Holm", places: "der Reichstag|die Landeshauptstadt|Bonn", verbs: "beschlossen/beschließen|blockiert/blockieren|geändert/ändern|abgestimmt/abstimmen|beraten/beraten|entworfen/entwerfen", adjs: "parteipolitisch|verfassungswidrig|umstritten", keywords: "Parlament|Reform|Minister|Kabinett"},
	}},
	{"economy", [2]string{"business", "wirtschaft"}, [2]vocabSrc{
		{name: "Business", nouns: "the economy|the unemployment rate|the inflation|the exports|the quarterly results|the profits|the employees|the trade union|the merger|the investors|the growth forecast|the retail sales|the factory|the wage agreement|the energy prices", entities: "the statistics office|the employers' association|carmaker Velder|the chamber of commerce", places: "the Ruhr|Stuttgart|Detroit", verbs: "raised/raise|lowered/lower|invested/invest|hired/hire|acquired/acquire|forecast/forecast", adjs: "profitable|sluggish|robust", keywords: "economy|unemployment|exports|investors"},
		{name: "Wirtschaft", nouns: "die Wirtschaft|die Arbeitslosenquote|die Inflation|die Exporte|die Quartalszahlen|die Gewinne|die Beschäftigten|die Gewerkschaft|die Fusion|die Investoren|die Wachstumsprognose|der Einzelhandel|die Fabrik|der Tarifvertrag|die Energiepreise", entities: "das Statistische Bundesamt|der Arbeitgeberverband|der Autobauer Velder|die Handelskammer", places: "das Ruhrgebiet|Stuttgart|Wolfsburg", verbs: "angehoben/anheben|gesenkt/senken|investiert/investieren|eingestellt/einstellen|übernommen/übernehmen|prognostiziert/prognostizieren", adjs: "profitabel|schwach|robust", keywords: "Wirtschaft|Arbeitslosigkeit|Exporte|Investoren"},
	}},
	{"sports", [2]string{"sport", "sport"}, [2]vocabSrc{
		{name: "Sport", nouns: "the league|the match|the goal|the home team|the away side|the championship|the relegation battle|the transfer|the midfielder|the tennis final|the handball team|the season|the table|the derby|the injury", entities: "FC Lindenau|Borussia Altstadt|coach Frank Kessler|tennis player Mia Roth", places: "the Weserstadion|Wimbledon|the Olympiahalle", verbs: "beat/beat|signed/sign|sacked/sack|drew against/draw against|scored/score|trained/train", adjs: "unbeaten|relegated|injured", keywords: "league|match|season|transfer"},
		{name: "Sport", nouns: "die Bundesliga|das Spiel|das Tor|die Heimmannschaft|die Gäste|die Meisterschaft|der Abstiegskampf|der Transfer|der Mittelfeldspieler|das Tennisfinale|die Handballmannschaft|die Saison|die Tabelle|das Derby|die Verletzung", entities: "der FC Lindenau|Borussia Altstadt|Trainer Frank Kessler|Tennisspielerin Mia Roth", places: "das Weserstadion|Wimbledon|die Olympiahalle", verbs: "geschlagen/schlagen|verpflichtet/verpflichten|entlassen/entlassen|erzielt/erzielen|trainiert/trainieren|verloren/verlieren", adjs: "ungeschlagen|abgestiegen|verletzt", keywords: "Bundesliga|Spiel|Saison|Transfer"},
	}},
	{"science", [2]string{"science", "wissen"}, [2]vocabSrc{
		{name: "Science", nouns: "the researchers|the study|the telescope|the experiment|the climate|the species|the university|the journal|the data|the satellite|the laboratory|the discovery|the fossils|the genome|the particle accelerator", entities: "the Max Institute|physicist Jonas Weber|the space agency|biologist Anna Lind", places: "Antarctica|the Alps|Geneva", verbs: "discovered/discover|measured/measure|published/publish|analysed/analyse|observed/observe|sequenced/sequence", adjs: "scientific|groundbreaking|preliminary", keywords: "research|study|scientists|discovery"},
		{name: "Wissen", nouns: "die Forscher|die Studie|das Teleskop|das Experiment|das Klima|die Art|die Universität|die Fachzeitschrift|die Daten|der Satellit|das Labor|die Entdeckung|die Fossilien|das Erbgut|der Teilchenbeschleuniger", entities: "das Max-Institut|der Physiker Jonas Weber|die Raumfahrtagentur|die Biologin Anna Lind", places: "die Antarktis|die Alpen|Genf", verbs: "entdeckt/entdecken|gemessen/messen|veröffentlicht/veröffentlichen|analysiert/analysieren|beobachtet/beobachten|entschlüsselt/entschlüsseln", adjs: "wissenschaftlich|bahnbrechend|vorläufig", keywords: "Forschung|Studie|Wissenschaftler|Entdeckung"},
	}},
	{"technology", [2]string{"technology", "digital"}, [2]vocabSrc{
		{name: "Technology", nouns: "the smartphone|the software|the internet|the users|the update|the laptop|the social network|the search engine|the operating system|the data protection|the app|the broadband|the hackers|the browser|the tablet", entities: "software maker Quantix|the phone maker Applewood|the data protection commissioner|developer Tim Sauer", places: "Silicon Valley|the CeBIT fair|Las Vegas", verbs: "released/release|launched/launch|installed/install|hacked/hack|downloaded/download|patched/patch", adjs: "wireless|faster|vulnerable", keywords: "smartphone|software|internet|app"},
		{name: "Digital", nouns: "das Smartphone|die Software|das Internet|die Nutzer|das Update|der Laptop|das soziale Netzwerk|die Suchmaschine|das Betriebssystem|der Datenschutz|die App|das Breitband|die Hacker|der Browser|das Tablet", entities: "der Softwarehersteller Quantix|der Handyhersteller Applewood|der Datenschutzbeauftragte|Entwickler Tim Sauer", places: "das Silicon Valley|die CeBIT|Las Vegas", verbs: "veröffentlicht/veröffentlichen|eingeführt/einführen|installiert/installieren|gehackt/hacken|heruntergeladen/herunterladen|aktualisiert/aktualisieren", adjs: "kabellos|schneller|angreifbar", keywords: "Smartphone|Software|Internet|App"},
	}},
	{"food", [2]string{"food", "essen"}, [2]vocabSrc{
		{name: "Food", nouns: "the recipe|the dough|the sauce|the onions|the butter|the oven|the flour|the garlic|the vegetables|the dessert|the soup|the spices|the chef|the restaurant|the ingredients", entities: "chef Paul Brenner|the cookery school|food critic Lisa Wood", places: "Tuscany|Provence|the Black Forest", verbs: "stirred/stir|baked/bake|chopped/chop|seasoned/season|served/serve|roasted/roast", adjs: "delicious|crispy|tender", keywords: "recipe|cooking|baking|dinner"},
		{name: "Essen", nouns: "das Rezept|der Teig|die Soße|die Zwiebeln|die Butter|der Ofen|das Mehl|der Knoblauch|das Gemüse|der Nachtisch|die Suppe|die Gewürze|der Koch|das Restaurant|die Zutaten", entities: "Koch Paul Brenner|die Kochschule|Restaurantkritikerin Lisa Wood", places: "die Toskana|die Provence|der Schwarzwald", verbs: "gerührt/rühren|gebacken/backen|gehackt/hacken|gewürzt/würzen|serviert/servieren|geröstet/rösten", adjs: "köstlich|knusprig|zart", keywords: "Rezept|Kochen|Backen|Abendessen"},
	}},
	{"travel", [2]string{"travel", "reise"}, [2]vocabSrc{
		{name: "Travel", nouns: "the hotel|the beach|the tourists|the flight|the island|the old town|the museum|the cruise|the hiking trail|the holiday|the airport|the guide|the coast|the mountains|the booking", entities: "the tour operator Sunway|the tourism board|travel writer Eva Stein", places: "Mallorca|the Baltic coast|Lisbon|Crete", verbs: "visited/visit|booked/book|explored/explore|recommended/recommend|discovered/discover|toured/tour", adjs: "picturesque|crowded|affordable", keywords: "holiday|travel|hotel|tourists"},
		{name: "Reise", nouns: "das Hotel|der Strand|die Touristen|der Flug|die Insel|die Altstadt|das Museum|die Kreuzfahrt|der Wanderweg|der Urlaub|der Flughafen|der Reiseführer|die Küste|die Berge|die Buchung", entities: "der Reiseveranstalter Sunway|das Fremdenverkehrsamt|Reiseautorin Eva Stein", places: "Mallorca|die Ostseeküste|Lissabon|Kreta", verbs: "besucht/besuchen|gebucht/buchen|erkundet/erkunden|empfohlen/empfehlen|entdeckt/entdecken|bereist/bereisen", adjs: "malerisch|überfüllt|günstig", keywords: "Urlaub|Reise|Hotel|Touristen"},
	}},
	{"culture", [2]string{"culture", "kultur"}, [2]vocabSrc{
		{name: "Culture", nouns: "the film|the festival|the novel|the exhibition|the concert|the director|the audience|the premiere|the orchestra|the album|the actress|the theatre|the award|the gallery|the critics", entities: "director Hanna Vogel|the band Northern Lights|author Martin Kraus|the national theatre", places: "Cannes|the Berlinale|Salzburg", verbs: "premiered/premiere|performed/perform|directed/direct|awarded/award|exhibited/exhibit|recorded/record", adjs: "moving|acclaimed|experimental", keywords: "film|festival|exhibition|concert"},
		{name: "Kultur", nouns: "der Film|das Festival|der Roman|die Ausstellung|das Konzert|der Regisseur|das Publikum|die Premiere|das Orchester|das Album|die Schauspielerin|das Theater|der Preis|die Galerie|die Kritiker", entities: "Regisseurin Hanna Vogel|die Band Nordlichter|Autor Martin Kraus|das Staatstheater", places: "Cannes|die Berlinale|Salzburg", verbs: "uraufgeführt/uraufführen|gespielt/spielen|inszeniert/inszenieren|ausgezeichnet/auszeichnen|ausgestellt/ausstellen|aufgenommen/aufnehmen", adjs: "bewegend|gefeiert|experimentell", keywords: "Film|Festival|Ausstellung|Konzert"},
	}},
	{"health", [2]string{"health", "gesundheit"}, [2]vocabSrc{
		{name: "Health", nouns: "the doctors|the patients|the hospital|the treatment|the health insurance|the diet|the vaccination|the cancer|the heart disease|the clinic|the medication|the therapy|the nurses|the allergy|the check-up", entities: "the medical association|cardiologist Eva Brandt|the health insurer AKV", places: "the university hospital|the Charité|the rehabilitation centre", verbs: "treated/treat|diagnosed/diagnose|prescribed/prescribe|operated on/operate on|recommended/recommend|prevented/prevent", adjs: "healthy|chronic|effective", keywords: "health|doctors|patients|treatment"},
		{name: "Gesundheit", nouns: "die Ärzte|die Patienten|das Krankenhaus|die Behandlung|die Krankenversicherung|die Ernährung|die Impfung|der Krebs|die Herzkrankheit|die Klinik|das Medikament|die Therapie|die Pflegekräfte|die Allergie|die Vorsorgeuntersuchung", entities: "die Ärztekammer|Kardiologin Eva Brandt|die Krankenkasse AKV", places: "das Universitätsklinikum|die Charité|die Rehaklinik", verbs: "behandelt/behandeln|diagnostiziert/diagnostizieren|verschrieben/verschreiben|operiert/operieren|empfohlen/empfehlen|verhindert/verhindern", adjs: "gesund|chronisch|wirksam", keywords: "Gesundheit|Ärzte|Patienten|Behandlung"},
	}},
	{"local", [2]string{"local", "lokales"}, [2]vocabSrc{
		{name: "Local", nouns: "the weather|the storm|the police|the fire brigade|the traffic|the road works|the mayor|the school|the town hall|the residents|the rain|the accident|the bridge|the market|the temperatures", entities: "the local police|the fire chief|the weather service|the town council", places: "the city centre|the main station|the harbour|the ring road", verbs: "closed/close|rescued/rescue|cleared/clear|repaired/repair|flooded/flood|reopened/reopen", adjs: "stormy|icy|congested", keywords: "weather|police|traffic|town hall"},
		{name: "Lokales", nouns: "das Wetter|das Unwetter|die Polizei|die Feuerwehr|der Verkehr|die Baustelle|der Bürgermeister|die Schule|das Rathaus|die Anwohner|der Regen|der Unfall|die Brücke|der Markt|die Temperaturen", entities: "die örtliche Polizei|der Feuerwehrchef|der Wetterdienst|der Stadtrat", places: "die Innenstadt|der Hauptbahnhof|der Hafen|der Ring", verbs: "gesperrt/sperren|gerettet/retten|geräumt/räumen|repariert/reparieren|überflutet/überfluten|freigegeben/freigeben", adjs: "stürmisch|glatt|verstopft", keywords: "Wetter|Polizei|Verkehr|Rathaus"},
	}},
}

// eventSrc is the source form of one event.
type eventSrc struct {
	slug        string
	start, end  string // YYYY-MM-DD, end inclusive
	leadDays    float64
	afterDays   float64
	mentionedIn []string // background topics whose articles mention the event
	description string
	v           [2]vocabSrc
}

// eventSrcs are the fictional but plausible events, in the order --events
// takes them.
var eventSrcs = []eventSrc{
	{slug: "federal-election-2009", start: "2009-09-27", end: "2009-09-28", leadDays: 40, afterDays: 50,
		mentionedIn: []string{"politics", "economy"},
		description: "The 2009 federal election: campaign, election night, results and coalition talks.",
		v: [2]vocabSrc{
			{name: "the 2009 federal election", nouns: "the federal election|the election campaign|the ballot|the voters|the polling stations|the coalition talks|the chancellor|the Bundestag|the opposition|the turnout|the exit polls|the party congress|the candidates|the constituency|the second vote|the grand coalition|the campaign posters|the election night|the seat distribution|the electoral commission", entities: "Chancellor Anna Berger|challenger Thomas Wendt|the Christian Union|the Social Party|the Liberal Democrats|the Greens|the Left Alliance|the Federal Returning Officer", places: "Berlin|the Konrad House|the Willy Hall", verbs: "campaigned for/campaign for|voted for/vote for|won/win|lost/lose|conceded/concede|formed/form|negotiated/negotiate|counted/count", adjs: "decisive|narrow|historic|close", keywords: "federal election|Bundestag|chancellor|coalition|voters|election campaign"},
			{name: "die Bundestagswahl 2009", nouns: "die Bundestagswahl|der Wahlkampf|der Stimmzettel|die Wähler|die Wahllokale|die Koalitionsverhandlungen|die Kanzlerin|der Bundestag|die Opposition|die Wahlbeteiligung|die Hochrechnung|der Parteitag|die Kandidaten|der Wahlkreis|die Zweitstimme|die große Koalition|die Wahlplakate|der Wahlabend|die Sitzverteilung|der Bundeswahlleiter", entities: "Kanzlerin Anna Berger|Herausforderer Thomas Wendt|die Christliche Union|die Sozialpartei|die Liberalen|die Grünen|das Linksbündnis|der Bundeswahlleiter", places: "Berlin|das Konrad-Haus|die Willy-Halle", verbs: "gewonnen/gewinnen|verloren/verlieren|gewählt/wählen|eingeräumt/einräumen|gebildet/bilden|verhandelt/verhandeln|ausgezählt/auszählen|angeführt/anführen", adjs: "knapp|historisch|entscheidend|enttäuschend", keywords: "Bundestagswahl|Wahlkampf|Kanzlerin|Koalition|Wähler|Bundestag"},
		}},
	{slug: "hrafnfell-eruption-2010", start: "2010-04-14", end: "2010-05-23", leadDays: 20, afterDays: 60,
		mentionedIn: []string{"travel", "science", "economy"},
		description: "The eruption of the Icelandic volcano Hrafnfell and the ash cloud that closed European airspace.",
		v: [2]vocabSrc{
			{name: "the eruption of Hrafnfell", nouns: "the eruption|the volcano|the ash cloud|the airspace|the flights|the airlines|the lava|the glacier|the evacuation|the volcanic ash|the air traffic|the stranded passengers|the crater|the plume|the meteorologists|the flight ban|the airports|the seismic activity|the meltwater|the jet engines", entities: "Hrafnfell|the Icelandic Met Office|Eurocontrol|the civil aviation authority|volcanologist Sigrun Haldorsdottir|transport minister Peter Lang", places: "Reykjavik|Iceland|Heathrow|Frankfurt airport|the North Atlantic", verbs: "grounded/ground|cancelled/cancel|closed/close|reopened/reopen|stranded/strand|measured/measure|evacuated/evacuate|monitored/monitor", adjs: "volcanic|chaotic|unpredictable|grounded", keywords: "volcano|eruption|ash cloud|Hrafnfell|air traffic|flight ban"},
			{name: "der Ausbruch des Hrafnfell", nouns: "der Vulkanausbruch|der Vulkan|die Aschewolke|der Luftraum|die Flüge|die Fluggesellschaften|die Lava|der Gletscher|die Evakuierung|die Vulkanasche|der Flugverkehr|die gestrandeten Passagiere|der Krater|die Rauchsäule|die Meteorologen|das Flugverbot|die Flughäfen|die seismische Aktivität|das Schmelzwasser|die Triebwerke", entities: "Hrafnfell|der isländische Wetterdienst|Eurocontrol|die Flugsicherung|Vulkanologin Sigrun Haldorsdottir|Verkehrsminister Peter Lang", places: "Reykjavik|Island|Frankfurt|der Nordatlantik", verbs: "gesperrt/sperren|gestrichen/streichen|geschlossen/schließen|wieder geöffnet/wieder öffnen|gemessen/messen|evakuiert/evakuieren|überwacht/überwachen|umgeleitet/umleiten", adjs: "vulkanisch|chaotisch|unberechenbar|gesperrt", keywords: "Vulkan|Vulkanausbruch|Aschewolke|Hrafnfell|Flugverkehr|Flugverbot"},
		}},
	{slug: "world-cup-2010", start: "2010-06-11", end: "2010-07-11", leadDays: 45, afterDays: 30,
		mentionedIn: []string{"sports", "economy", "culture"},
		description: "The 2010 football World Cup in South Africa: matches, teams, results and the final.",
		v: [2]vocabSrc{
			{name: "the 2010 World Cup", nouns: "the World Cup|the group stage|the quarter-final|the semi-final|the final|the national team|the penalty shoot-out|the goalkeeper|the striker|the coach|the referee|the stadium|the fans|the vuvuzelas|the opening match|the squad|the extra time|the free kick|the golden boot|the tournament", entities: "FIFA|coach Joachim Brandt|striker Miguel Ortega|goalkeeper Lars Feld|the Dutch team|the Spanish team|the German team", places: "Johannesburg|Cape Town|Durban|Soccer City|South Africa", verbs: "scored/score|defeated/defeat|qualified for/qualify for|missed/miss|saved/save|celebrated/celebrate|eliminated/eliminate|substituted/substitute", adjs: "dramatic|unbeaten|goalless|spectacular", keywords: "World Cup|football|national team|FIFA|quarter-final|South Africa"},
			{name: "die Fußball-WM 2010", nouns: "die Weltmeisterschaft|die Gruppenphase|das Viertelfinale|das Halbfinale|das Finale|die Nationalmannschaft|das Elfmeterschießen|der Torwart|der Stürmer|der Bundestrainer|der Schiedsrichter|das Stadion|die Fans|die Vuvuzelas|das Eröffnungsspiel|der Kader|die Verlängerung|der Freistoß|die Torjägerkanone|das Turnier", entities: "die FIFA|Bundestrainer Joachim Brandt|Stürmer Miguel Ortega|Torwart Lars Feld|die DFB-Elf|die Spanier|die Niederländer", places: "Johannesburg|Kapstadt|Durban|Südafrika", verbs: "geschlagen/schlagen|erzielt/erzielen|verpasst/verpassen|gehalten/halten|gefeiert/feiern|ausgeschaltet/ausschalten|eingewechselt/einwechseln|besiegt/besiegen", adjs: "dramatisch|ungeschlagen|torlos|spektakulär", keywords: "WM|Weltmeisterschaft|Nationalmannschaft|Fußball|Viertelfinale|Südafrika"},
		}},
	{slug: "kaminoura-nuclear-accident-2011", start: "2011-03-11", end: "2011-03-31", leadDays: 5, afterDays: 120,
		mentionedIn: []string{"politics", "science", "economy"},
		description: "The nuclear accident at the Kaminoura power plant after an earthquake and tsunami.",
		v: [2]vocabSrc{
			{name: "the Kaminoura nuclear accident", nouns: "the nuclear accident|the reactor|the power plant|the meltdown|the radiation|the cooling system|the evacuation zone|the fuel rods|the containment|the radioactive leak|the operator|the tsunami|the earthquake|the workers|the iodine tablets|the exclusion zone|the nuclear regulator|the hydrogen explosion|the seawater|the contamination", entities: "Kaminoura|the plant operator Tokai Power|the International Atomic Energy Agency|prime minister Kenji Mori|the nuclear safety agency", places: "Japan|Tokyo|Kaminoura prefecture|the Pacific coast", verbs: "evacuated/evacuate|measured/measure|cooled/cool|contaminated/contaminate|shut down/shut down|inspected/inspect|warned/warn|released/release", adjs: "radioactive|critical|contaminated|nuclear", keywords: "nuclear accident|reactor|Kaminoura|radiation|meltdown|nuclear power"},
			{name: "der Atomunfall von Kaminoura", nouns: "der Atomunfall|der Reaktor|das Kernkraftwerk|die Kernschmelze|die Strahlung|das Kühlsystem|die Sperrzone|die Brennstäbe|die Schutzhülle|das radioaktive Leck|der Betreiber|der Tsunami|das Erdbeben|die Arbeiter|die Jodtabletten|die Evakuierungszone|die Atomaufsicht|die Wasserstoffexplosion|das Meerwasser|die Verseuchung", entities: "Kaminoura|der Betreiber Tokai Power|die Internationale Atomenergiebehörde|Regierungschef Kenji Mori|die Atomaufsicht", places: "Japan|Tokio|die Präfektur Kaminoura|die Pazifikküste", verbs: "evakuiert/evakuieren|gemessen/messen|gekühlt/kühlen|verseucht/verseuchen|abgeschaltet/abschalten|untersucht/untersuchen|gewarnt/warnen|freigesetzt/freisetzen", adjs: "radioaktiv|kritisch|verseucht|atomar", keywords: "Atomunfall|Reaktor|Kaminoura|Strahlung|Kernschmelze|Atomkraft"},
		}},
	{slug: "harwick-collapse-2008", start: "2008-09-15", end: "2008-10-15", leadDays: 30, afterDays: 90,
		mentionedIn: []string{"economy", "politics"},
		description: "The collapse of the investment bank Harwick Brothers and the financial crisis that followed.",
		v: [2]vocabSrc{
			{name: "the collapse of Harwick Brothers", nouns: "the bank collapse|the investment bank|the bankruptcy|the financial crisis|the stock market|the shareholders|the bailout|the credit crunch|the mortgage securities|the central bank|the interest rates|the liquidity|the share price|the creditors|the rescue package|the stock exchange|the toxic assets|the regulators|the hedge funds|the deposit guarantee", entities: "Harwick Brothers|chief executive Richard Fold|the Federal Reserve|the Treasury|finance minister Peer Steiner|the European Central Bank", places: "Wall Street|New York|Frankfurt|the City of London", verbs: "filed for/file for|rescued/rescue|guaranteed/guarantee|lost/lose|sold/sell|cut/cut|injected/inject|bailed out/bail out", adjs: "bankrupt|volatile|systemic|insolvent", keywords: "bank collapse|Harwick Brothers|financial crisis|bankruptcy|bailout|stock market"},
			{name: "die Pleite von Harwick Brothers", nouns: "die Bankenpleite|die Investmentbank|die Insolvenz|die Finanzkrise|der Aktienmarkt|die Aktionäre|das Rettungspaket|die Kreditklemme|die Hypothekenpapiere|die Notenbank|die Leitzinsen|die Liquidität|der Aktienkurs|die Gläubiger|der Rettungsschirm|die Börse|die faulen Papiere|die Finanzaufsicht|die Hedgefonds|die Einlagensicherung", entities: "Harwick Brothers|Bankchef Richard Fold|die US-Notenbank|das US-Finanzministerium|Finanzminister Peer Steiner|die Europäische Zentralbank", places: "die Wall Street|New York|Frankfurt|London", verbs: "beantragt/beantragen|gerettet/retten|garantiert/garantieren|verloren/verlieren|verkauft/verkaufen|gesenkt/senken|gestützt/stützen|verstaatlicht/verstaatlichen", adjs: "insolvent|volatil|systemrelevant|pleite", keywords: "Bankenpleite|Harwick Brothers|Finanzkrise|Insolvenz|Rettungspaket|Börse"},
		}},
	{slug: "flu-pandemic-2009", start: "2009-04-24", end: "2009-08-10", leadDays: 10, afterDays: 90,
		mentionedIn: []string{"health", "travel", "politics"},
		description: "The 2009 H1N1 swine flu pandemic: outbreak, spread, vaccination campaigns.",
		v: [2]vocabSrc{
			{name: "the 2009 swine flu pandemic", nouns: "the pandemic|the influenza virus|the vaccine|the infections|the health authorities|the outbreak|the symptoms|the vaccination campaign|the hospitals|the patients|the quarantine|the antiviral drugs|the death toll|the pandemic alert|the strain|the school closures|the masks|the laboratory tests|the incubation period|the health ministry", entities: "the World Health Organization|the Robert Institute|health minister Ulla Brenner|virologist Christian Hahn|the disease control centre", places: "Mexico|Mexico City|Geneva|Europe", verbs: "infected/infect|vaccinated/vaccinate|confirmed/confirm|raised/raise|tested/test|isolated/isolate|ordered/order|delivered/deliver", adjs: "infectious|mild|contagious|pandemic", keywords: "swine flu|pandemic|H1N1|vaccine|influenza|WHO"},
			{name: "die Schweinegrippe-Pandemie 2009", nouns: "die Pandemie|das Grippevirus|der Impfstoff|die Infektionen|die Gesundheitsbehörden|der Ausbruch|die Symptome|die Impfkampagne|die Krankenhäuser|die Patienten|die Quarantäne|die antiviralen Medikamente|die Zahl der Toten|die Pandemiewarnstufe|der Erregerstamm|die Schulschließungen|die Atemschutzmasken|die Labortests|die Inkubationszeit|das Gesundheitsministerium", entities: "die Weltgesundheitsorganisation|das Robert-Institut|Gesundheitsministerin Ulla Brenner|Virologe Christian Hahn|die Seuchenschutzbehörde", places: "Mexiko|Genf|Europa|Mexiko-Stadt", verbs: "infiziert/infizieren|geimpft/impfen|bestätigt/bestätigen|angehoben/anheben|getestet/testen|isoliert/isolieren|angeordnet/anordnen|ausgeliefert/ausliefern", adjs: "ansteckend|mild|hochansteckend|pandemisch", keywords: "Schweinegrippe|Pandemie|H1N1|Impfstoff|Grippe|WHO"},
		}},
	{slug: "meridian-oil-spill-2010", start: "2010-04-20", end: "2010-07-15", leadDays: 3, afterDays: 120,
		mentionedIn: []string{"economy", "science", "travel"},
		description: "The explosion of the Meridian Horizon drilling rig and the oil spill in the Gulf of Mexico.",
		v: [2]vocabSrc{
			{name: "the Meridian oil spill", nouns: "the oil spill|the drilling rig|the oil slick|the blowout preventer|the coastline|the wetlands|the cleanup|the containment dome|the relief well|the fishermen|the dispersants|the tar balls|the oil company|the explosion|the wildlife|the beaches|the barrels|the sea floor|the compensation fund|the moratorium", entities: "Meridian Petroleum|the Meridian Horizon platform|the Coast Guard|chief executive Tony Hale|the Environmental Protection Agency", places: "the Gulf of Mexico|Louisiana|New Orleans|the Mississippi delta", verbs: "capped/cap|sealed/seal|polluted/pollute|drilled/drill|skimmed/skim|blamed/blame|compensated/compensate|contained/contain", adjs: "environmental|toxic|oily|catastrophic", keywords: "oil spill|Meridian|Gulf of Mexico|oil rig|cleanup|coastline"},
			{name: "die Ölpest im Golf von Mexiko", nouns: "die Ölpest|die Bohrinsel|der Ölteppich|der Blowout-Preventer|die Küste|die Feuchtgebiete|die Säuberung|die Auffangglocke|die Entlastungsbohrung|die Fischer|die Chemikalien|die Teerklumpen|der Ölkonzern|die Explosion|die Tierwelt|die Strände|die Barrel|der Meeresboden|der Entschädigungsfonds|das Bohrmoratorium", entities: "Meridian Petroleum|die Plattform Meridian Horizon|die US-Küstenwache|Konzernchef Tony Hale|die Umweltbehörde EPA", places: "der Golf von Mexiko|Louisiana|New Orleans|das Mississippi-Delta", verbs: "abgedichtet/abdichten|verschmutzt/verschmutzen|gebohrt/bohren|abgesaugt/absaugen|beschuldigt/beschuldigen|entschädigt/entschädigen|verschlossen/verschließen|eingedämmt/eindämmen", adjs: "ökologisch|giftig|verölt|katastrophal", keywords: "Ölpest|Meridian|Golf von Mexiko|Bohrinsel|Ölteppich|Küste"},
		}},
	{slug: "summer-olympics-2012", start: "2012-07-27", end: "2012-08-12", leadDays: 60, afterDays: 30,
		mentionedIn: []string{"sports", "culture", "travel"},
		description: "The 2012 Summer Olympics in London: competitions, medals and records.",
		v: [2]vocabSrc{
			{name: "the London 2012 Olympics", nouns: "the Olympic Games|the opening ceremony|the gold medal|the athletes|the Olympic village|the medal table|the world record|the relay|the swimming final|the Olympic stadium|the torch relay|the spectators|the doping tests|the closing ceremony|the sprinters|the rowing regatta|the silver medal|the qualifying heats|the volunteers|the Olympic flame", entities: "the International Olympic Committee|sprinter Usain Cole|swimmer Lena Vogt|the British team|the organising committee", places: "London|Stratford|Wembley|the Olympic Park", verbs: "won/win|broke/break|qualified for/qualify for|finished/finish|celebrated/celebrate|defended/defend|carried/carry|set/set", adjs: "Olympic|golden|fastest|historic", keywords: "Olympics|Olympic Games|London 2012|gold medal|athletes|medal table"},
			{name: "die Olympischen Spiele 2012", nouns: "die Olympischen Spiele|die Eröffnungsfeier|die Goldmedaille|die Athleten|das olympische Dorf|der Medaillenspiegel|der Weltrekord|die Staffel|das Schwimmfinale|das Olympiastadion|der Fackellauf|die Zuschauer|die Dopingkontrollen|die Schlussfeier|die Sprinter|die Ruderregatta|die Silbermedaille|die Vorläufe|die Freiwilligen|das olympische Feuer", entities: "das Internationale Olympische Komitee|Sprinter Usain Cole|Schwimmerin Lena Vogt|das deutsche Team|das Organisationskomitee", places: "London|Stratford|Wembley|der Olympiapark", verbs: "gewonnen/gewinnen|gebrochen/brechen|erreicht/erreichen|gefeiert/feiern|verteidigt/verteidigen|getragen/tragen|aufgestellt/aufstellen|geholt/holen", adjs: "olympisch|golden|schnellste|historisch", keywords: "Olympia|Olympische Spiele|London 2012|Goldmedaille|Athleten|Medaillenspiegel"},
		}},
}

// MaxEvents is the number of events the generator knows.
var MaxEvents = len(eventSrcs)
