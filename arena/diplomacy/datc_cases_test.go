package diplomacy_test

// The DATC test cases 6.A to 6.J (Diplomacy Adjudicator Test Cases by
// Lucas B. Kruijswijk, version 3.0 of 2024), one entry per case (6.J.9,
// which has two set-ups, has two), each with the case's text as a comment
// and a script (see datcCase in datc_test.go).
//
// Where the DATC offers options this engine takes the DATC 3.0 preferred
// one: the 2023 rulebook for convoys to adjacent provinces (intent shown
// by "via convoy" or by a convoy order of the army's own power, no
// fallback to the land route: 4.A.3), impossible orders ignored (4.E.1),
// the Szykman rule for convoy paradoxes (4.A.2), a dislodged unit still
// bouncing in the attacker's province outside a head-to-head battle
// (4.A.7, choice b), orders handled one by one when there are too many
// builds or disbands (4.D.4, 4.D.6), and civil disorder disbands by
// distance to owned supply centres over land and sea (2023 rules, 6.J).
//
// The texts are those of DATC 2.4 for the cases DATC 3.0 kept unchanged,
// and of DATC 3.0 for the cases it added (6.B.15, 6.C.8, 6.C.9, 6.F.25,
// 6.G.19, 6.G.20) or changed (6.G.8, 6.G.11 and section 6.J). The set-ups
// and expectations of the cases already in DATC 2.4 were cross-checked
// against the transcription in the Python diplomacy library's tests
// (diplomacy/tests/test_datc.py); result codes follow that library
// ("void" for an order without effect, "no_convoy" for a move by convoy
// without a route, "disrupted" for a convoy broken by a paradox). Where
// the library reports a code the DATC text contradicts, the line says so.

var datcCases = []datcCase{
	// 6.A.1. MOVING TO AN AREA THAT IS NOT A NEIGHBOUR
	// Check if an illegal move (without convoy) will fail.
	// England: F North Sea - Picardy
	// Order should fail.
	{id: "6.A.1", title: "MOVING TO AN AREA THAT IS NOT A NEIGHBOUR", script: `
		units ENGLAND: F NTH
		orders ENGLAND: F NTH - PIC
		process
		result M F NTH: void
		owner F NTH: ENGLAND
		owner F PIC: none
	`},
	// 6.A.2. MOVE ARMY TO SEA
	// Check if an army could not be moved to open sea.
	// England: A Liverpool - Irish Sea
	// Order should fail.
	{id: "6.A.2", title: "MOVE ARMY TO SEA", script: `
		units ENGLAND: A LVP
		orders ENGLAND: A LVP - IRI
		process
		result M A LVP: void
		owner A LVP: ENGLAND
		owner A IRI: none
	`},
	// 6.A.3. MOVE FLEET TO LAND
	// Check whether a fleet can not move to land.
	// Germany: F Kiel - Munich
	// Order should fail.
	{id: "6.A.3", title: "MOVE FLEET TO LAND", script: `
		units GERMANY: F KIE
		orders GERMANY: F KIE - MUN
		process
		result M F KIE: void
		owner F KIE: GERMANY
		owner F MUN: none
	`},
	// 6.A.4. MOVE TO OWN SECTOR
	// Moving to the same sector is an illegal move (2000 rulebook, page 4,
	// "An Army can be ordered to move into an adjacent inland or coastal province.").
	// Germany: F Kiel - Kiel
	// Program should not crash.
	{id: "6.A.4", title: "MOVE TO OWN SECTOR", script: `
		units GERMANY: F KIE
		orders GERMANY: F KIE - KIE
		process
		result M F KIE: void
		owner F KIE: GERMANY
	`},
	// 6.A.5. MOVE TO OWN SECTOR WITH CONVOY
	// Moving to the same sector is still illegal with convoy (2000 rulebook, page 4,
	// "Note: An Army can move across water provinces from one coastal province to another...").
	// England: F North Sea Convoys A Yorkshire - Yorkshire
	// England: A Yorkshire - Yorkshire
	// England: A Liverpool Supports A Yorkshire - Yorkshire
	// Germany: F London - Yorkshire
	// Germany: A Wales Supports F London - Yorkshire
	// The move of the army in Yorkshire is illegal. This makes the support of Liverpool also illegal and without
	// the support, the Germans have a stronger force. The army in London dislodges the army in Yorkshire.
	{id: "6.A.5", title: "MOVE TO OWN SECTOR WITH CONVOY", script: `
		units ENGLAND: F NTH, A YOR, A LVP
		units GERMANY: F LON, A WAL
		orders ENGLAND: F NTH C A YOR - YOR; A YOR - YOR; A LVP S A YOR - YOR
		orders GERMANY: F LON - YOR; A WAL S F LON - YOR
		process
		result M A YOR: void
		result M A YOR: dislodged
		result M A LVP: void
		result M F NTH: void
		dislodged A YOR by LON
		result M F LON: ok
		result M A WAL: ok
		owner F YOR: GERMANY
	`},
	// 6.A.6. ORDERING A UNIT OF ANOTHER COUNTRY
	// Check whether someone can not order a unit that is not his own unit.
	// England has a fleet in London.
	// Germany: F London - North Sea
	// Order should fail.
	{id: "6.A.6", title: "ORDERING A UNIT OF ANOTHER COUNTRY", script: `
		units ENGLAND: F LON
		orders GERMANY: F LON - NTH
		process
		result M F LON: ok
		owner F LON: ENGLAND
		owner F NTH: none
	`},
	// 6.A.7. ONLY ARMIES CAN BE CONVOYED
	// A fleet can not be convoyed.
	// England: F London - Belgium
	// England: F North Sea Convoys A London - Belgium
	// Move from London to Belgium should fail.
	{id: "6.A.7", title: "ONLY ARMIES CAN BE CONVOYED", script: `
		units ENGLAND: F LON, F NTH
		orders ENGLAND: F LON - BEL; F NTH C A LON - BEL
		process
		result M F LON: void
		result M F NTH: void
		owner F LON: ENGLAND
		owner F NTH: ENGLAND
		owner F BEL: none
		units ENGLAND: F LON, F NTH
		orders ENGLAND: F LON - BEL; F NTH C LON - BEL
		process
		result M F LON: void
		result M F NTH: void
		owner F LON: ENGLAND
		owner F NTH: ENGLAND
		owner F BEL: none
	`},
	// 6.A.8. SUPPORT TO HOLD YOURSELF IS NOT POSSIBLE
	// An army can not get an additional hold power by supporting itself.
	// Italy: A Venice - Trieste
	// Italy: A Tyrolia Supports A Venice - Trieste
	// Austria: F Trieste Supports F Trieste
	// The army in Trieste should be dislodged.
	{id: "6.A.8", title: "SUPPORT TO HOLD YOURSELF IS NOT POSSIBLE", script: `
		units ITALY: A VEN, A TYR
		units AUSTRIA: F TRI
		orders ITALY: A VEN - TRI; A TYR S A VEN - TRI
		orders AUSTRIA: F TRI S F TRI
		process
		result M F TRI: void
		result M F TRI: dislodged
		dislodged F TRI by VEN
		owner A TRI: ITALY
		owner A VEN: none
	`},
	// 6.A.9. FLEETS MUST FOLLOW COAST IF NOT ON SEA
	// If two places are adjacent, that does not mean that a fleet can move between
	// those two places. An implementation that only holds one list of adj. places for each place, is incorrect
	// Italy: F Rome - Venice
	// Move fails. An army can go from Rome to Venice, but a fleet can not.
	{id: "6.A.9", title: "FLEETS MUST FOLLOW COAST IF NOT ON SEA", script: `
		units ITALY: F ROM
		orders ITALY: F ROM - VEN
		process
		result M F ROM: void
		owner F ROM: ITALY
		owner F VEN: none
	`},
	// 6.A.10. SUPPORT ON UNREACHABLE DESTINATION NOT POSSIBLE
	// The destination of the move that is supported must be reachable by the supporting unit.
	// Austria: A Venice Hold
	// Italy: F Rome Supports A Apulia - Venice
	// Italy: A Apulia - Venice
	// The support of Rome is illegal, because Venice can not be reached from Rome by a fleet.
	// Venice is not dislodged.
	{id: "6.A.10", title: "SUPPORT ON UNREACHABLE DESTINATION NOT POSSIBLE", script: `
		units ITALY: F ROM, A APU
		units AUSTRIA: A VEN
		orders ITALY: F ROM S A APU - VEN; A APU - VEN
		orders AUSTRIA: A VEN H
		process
		result M F ROM: void
		result M A APU: bounce
		owner F ROM: ITALY
		owner A VEN: AUSTRIA
	`},
	// 6.A.11. SIMPLE BOUNCE
	// Two armies bouncing on each other.
	// Austria: A Vienna - Tyrolia
	// Italy: A Venice - Tyrolia
	// The two units bounce.
	{id: "6.A.11", title: "SIMPLE BOUNCE", script: `
		units ITALY: A VEN
		units AUSTRIA: A VIE
		orders ITALY: A VEN - TYR
		orders AUSTRIA: A VIE - TYR
		process
		result M A VEN: bounce
		result M A VIE: bounce
		owner A VEN: ITALY
		owner A VIE: AUSTRIA
		owner A TYR: none
	`},
	// 6.A.12. BOUNCE OF THREE UNITS
	// If three units move to the same place, the adjudicator should not bounce
	// the first two units and then let the third unit go to the now open place.
	// Austria: A Vienna - Tyrolia
	// Germany: A Munich - Tyrolia
	// Italy: A Venice - Tyrolia
	// The three units bounce.
	{id: "6.A.12", title: "BOUNCE OF THREE UNITS", script: `
		units AUSTRIA: A VIE
		units GERMANY: A MUN
		units ITALY: A VEN
		orders AUSTRIA: A VIE - TYR
		orders GERMANY: A MUN - TYR
		orders ITALY: A VEN - TYR
		process
		result M A VEN: bounce
		result M A VIE: bounce
		result M A MUN: bounce
		owner A VIE: AUSTRIA
		owner A MUN: GERMANY
		owner A VEN: ITALY
		owner A TYR: none
	`},
	// 6.B.1. MOVING WITH UNSPECIFIED COAST WHEN COAST IS NECESSARY
	// Coast is significant in this case:
	// France: F Portugal - Spain
	// Some adjudicators take a default coast (see issue 4.B.1).
	// I prefer that the move fails.
	{id: "6.B.1", title: "MOVING WITH UNSPECIFIED COAST WHEN COAST IS NECESSARY", script: `
		units FRANCE: F POR
		orders FRANCE: F POR - SPA
		process
		result M F POR: void
		owner F POR: FRANCE
		owner F SPA: none
		owner F SPA/NC: none
		owner F SPA/SC: none
	`},
	// 6.B.2. MOVING WITH UNSPECIFIED COAST WHEN COAST IS NOT NECESSARY
	// There is only one coast possible in this case:
	// France: F Gascony - Spain
	// Since the North Coast is the only coast that can be reached, it seems logical that
	// the a move is attempted to the north coast of Spain. Some adjudicators require that a coast
	// is also specified in this case and will decide that the move fails or take a default coast (see 4.B.2).
	// I prefer that an attempt is made to the only possible coast, the north coast of Spain.
	{id: "6.B.2", title: "MOVING WITH UNSPECIFIED COAST WHEN COAST IS NOT NECESSARY", script: `
		units FRANCE: F GAS
		orders FRANCE: F GAS - SPA
		process
		result M F GAS: ok
		owner F GAS: none
		owner F SPA/NC: FRANCE
		owner F SPA/SC: none
	`},
	// 6.B.3. MOVING WITH WRONG COAST WHEN COAST IS NOT NECESSARY
	// If only one coast is possible, but the wrong coast can be specified.
	// France: F Gascony - Spain(sc)
	// If the rules are played very clemently, a move will be attempted to the north coast of Spain.
	// However, since this order is very clear and precise, it is more common that the move fails (see 4.B.3).
	// I prefer that the move fails.
	{id: "6.B.3", title: "MOVING WITH WRONG COAST WHEN COAST IS NOT NECESSARY", script: `
		units FRANCE: F GAS
		orders FRANCE: F GAS - SPA/SC
		process
		result M F GAS: void
		owner F GAS: FRANCE
		owner F SPA: none
		owner F SPA/NC: none
		owner F SPA/SC: none
	`},
	// 6.B.4. SUPPORT TO UNREACHABLE COAST ALLOWED
	// A fleet can give support to a coast where it can not go.
	// France: F Gascony - Spain(nc)
	// France: F Marseilles Supports F Gascony - Spain(nc)
	// Italy: F Western Mediterranean - Spain(sc)
	// Although the fleet in Marseilles can not go to the north coast it can still
	// support targeting the north coast. So, the support is successful, the move of the fleet
	// in Gasgony succeeds and the move of the Italian fleet fails.
	{id: "6.B.4", title: "SUPPORT TO UNREACHABLE COAST ALLOWED", script: `
		units FRANCE: F GAS, F MAR
		units ITALY: F WES
		orders FRANCE: F GAS - SPA/NC; F MAR S F GAS - SPA/NC
		orders ITALY: F WES - SPA/SC
		process
		result M F WES: bounce
		owner F SPA/NC: FRANCE
		owner F MAR: FRANCE
		owner F WES: ITALY
	`},
	// 6.B.5. SUPPORT FROM UNREACHABLE COAST NOT ALLOWED
	// A fleet can not give support to an area that can not be reached from the current coast of the fleet.
	// France: F Marseilles - Gulf of Lyon
	// France: F Spain(nc) Supports F Marseilles - Gulf of Lyon
	// Italy: F Gulf of Lyon Hold
	// The Gulf of Lyon can not be reached from the North Coast of Spain. Therefore, the support of
	// Spain is invalid and the fleet in the Gulf of Lyon is not dislodged.
	{id: "6.B.5", title: "SUPPORT FROM UNREACHABLE COAST NOT ALLOWED", script: `
		units FRANCE: F MAR, F SPA/NC
		units ITALY: F LYO
		orders FRANCE: F MAR - LYO; F SPA/NC S F MAR - LYO
		orders ITALY: F LYO H
		process
		result M F SPA/NC: void
		result M F MAR: bounce
		owner F MAR: FRANCE
		owner F SPA/NC: FRANCE
		owner F LYO: ITALY
	`},
	// 6.B.6. SUPPORT CAN BE CUT WITH OTHER COAST
	// Support can be cut from the other coast.
	// England: F Irish Sea Supports F North Atlantic Ocean - Mid-Atlantic Ocean
	// England: F North Atlantic Ocean - Mid-Atlantic Ocean
	// France: F Spain(nc) Supports F Mid-Atlantic Ocean
	// France: F Mid-Atlantic Ocean Hold
	// Italy: F Gulf of Lyon - Spain(sc)
	// The Italian fleet in the Gulf of Lyon will cut the support in Spain. That means
	// that the French fleet in the Mid Atlantic Ocean will be dislodged by the English fleet
	// in the North Atlantic Ocean.
	{id: "6.B.6", title: "SUPPORT CAN BE CUT WITH OTHER COAST", script: `
		units ENGLAND: F IRI, F NAO
		units FRANCE: F SPA/NC, F MAO
		units ITALY: F LYO
		orders ENGLAND: F IRI S F NAO - MAO; F NAO - MAO
		orders FRANCE: F SPA/NC S F MAO; F MAO H
		orders ITALY: F LYO - SPA/SC
		process
		result M F SPA/NC: cut
		result M F MAO: dislodged
		dislodged F MAO by NAO
		owner F IRI: ENGLAND
		owner F NAO: none
		owner F MAO: ENGLAND
		owner F SPA/NC: FRANCE
		owner F LYO: ITALY
	`},
	// 6.B.7. SUPPORTING WITH UNSPECIFIED COAST
	// Most house rules accept support orders without coast specification.
	// France: F Portugal Supports F Mid-Atlantic Ocean - Spain
	// France: F Mid-Atlantic Ocean - Spain(nc)
	// Italy: F Gulf of Lyon Supports F Western Mediterranean - Spain(sc)
	// Italy: F Western Mediterranean - Spain(sc)
	// See issue 4.B.4. If coasts are not required in support orders, then the support of Portugal is successful.
	// This means that the Italian fleet in the Western Mediterranean bounces. Some adjudicators may not accept a
	// support order without coast (the support will fail or a default coast is taken). In that case the
	// support order of Portugal fails (in case of a default coast the coast will probably the south coast) and
	// the Italian fleet in the Western Mediterranean will successfully move.
	// I prefer that the support succeeds and the Italian fleet in the Western Mediterranean bounces.
	{id: "6.B.7", title: "SUPPORTING WITH UNSPECIFIED COAST", script: `
		units FRANCE: F POR, F MAO
		units ITALY: F LYO, F WES
		orders FRANCE: F POR S F MAO - SPA; F MAO - SPA/NC
		orders ITALY: F LYO S F WES - SPA/SC; F WES - SPA/SC
		process
		result M F POR: ok
		result M F LYO: ok
		result M F MAO: bounce
		result M F WES: bounce
		owner F POR: FRANCE
		owner F MAO: FRANCE
		owner F LYO: ITALY
		owner F WES: ITALY
		owner F SPA: none
		owner F SPA/SC: none
		owner F SPA/NC: none
	`},
	// 6.B.8. SUPPORTING WITH UNSPECIFIED COAST WHEN ONLY ONE COAST IS POSSIBLE
	// Some hardliners require a coast in a support order even when only one coast is possible.
	// France: F Portugal Supports F Gascony - Spain
	// France: F Gascony - Spain(nc)
	// Italy: F Gulf of Lyon Supports F Western Mediterranean - Spain(sc)
	// Italy: F Western Mediterranean - Spain(sc)
	// See issue 4.B.4. If coasts are not required in support orders, then the support of Portugal is successful.
	// This means that the Italian fleet in the Western Mediterranean bounces. Some adjudicators may not accept a
	// support order without coast (the support will fail or a default coast is taken). In that case the
	// support order of Portugal fails (in case of a default coast the coast will probably the south coast) and
	// the Italian fleet in the Western Mediterranean will successfully move.
	// I prefer that supporting without coasts should be allowed. So I prefer that the support of Portugal
	// is successful and that the Italian fleet in the Western Mediterranean bounces.
	{id: "6.B.8", title: "SUPPORTING WITH UNSPECIFIED COAST WHEN ONLY ONE COAST IS POSSIBLE", script: `
		units FRANCE: F POR, F GAS
		units ITALY: F LYO, F WES
		orders FRANCE: F POR S F GAS - SPA; F GAS - SPA/NC
		orders ITALY: F LYO S F WES - SPA/SC; F WES - SPA/SC
		process
		result M F POR: ok
		result M F LYO: ok
		result M F GAS: bounce
		result M F WES: bounce
		owner F POR: FRANCE
		owner F GAS: FRANCE
		owner F LYO: ITALY
		owner F WES: ITALY
		owner F SPA: none
		owner F SPA/SC: none
		owner F SPA/NC: none
	`},
	// 6.B.9. SUPPORTING WITH WRONG COAST
	// Coasts can be specified in a support, but the result depends on the house rules.
	// France: F Portugal Supports F Mid-Atlantic Ocean - Spain(nc)
	// France: F Mid-Atlantic Ocean - Spain(sc)
	// Italy: F Gulf of Lyon Supports F Western Mediterranean - Spain(sc)
	// Italy: F Western Mediterranean - Spain(sc)
	// See issue 4.B.4. If it is required that the coast matches, then the support of the French fleet in the
	// Mid-Atlantic Ocean fails and that the Italian fleet in the Western Mediterranean moves successfully. Some
	// adjudicators ignores the coasts in support orders. In that case, the move of the Italian fleet bounces.
	// I prefer that the support fails and that the Italian fleet in the Western Mediterranean moves successfully.
	{id: "6.B.9", title: "SUPPORTING WITH WRONG COAST", script: `
		units FRANCE: F POR, F MAO
		units ITALY: F LYO, F WES
		orders FRANCE: F POR S F MAO - SPA/NC; F MAO - SPA/SC
		orders ITALY: F LYO S F WES - SPA/SC; F WES - SPA/SC
		process
		result M F POR: ok
		result M F MAO: bounce
		result M F LYO: ok
		result M F WES: bounce
		owner F POR: FRANCE
		owner F MAO: FRANCE
		owner F SPA: none
		owner F SPA/NC: none
		owner F SPA/SC: none
		owner F LYO: ITALY
		owner F WES: ITALY
	`},
	// 6.B.10. UNIT ORDERED WITH WRONG COAST
	// A player might specify the wrong coast for the ordered unit.
	// France has a fleet on the south coast of Spain and orders:
	// France: F Spain(nc) - Gulf of Lyon
	// If only perfect orders are accepted, then the move will fail, but since the coast for the ordered unit
	// has no purpose, it might also be ignored (see issue 4.B.5).
	// I prefer that a move will be attempted.
	{id: "6.B.10", title: "UNIT ORDERED WITH WRONG COAST", script: `
		units FRANCE: F SPA/SC
		orders FRANCE: F SPA/NC - LYO
		process
		result M F SPA/SC: ok
		owner F SPA: none
		owner F SPA/SC: none
		owner F LYO: FRANCE
	`},
	// 6.B.11. COAST CAN NOT BE ORDERED TO CHANGE
	// The coast can not change by just ordering the other coast.
	// France has a fleet on the north coast of Spain and orders:
	// France: F Spain(sc) - Gulf of Lyon
	// The move fails.
	{id: "6.B.11", title: "COAST CAN NOT BE ORDERED TO CHANGE", script: `
		units FRANCE: F SPA/NC
		orders FRANCE: F SPA/SC - LYO
		process
		result M F SPA/SC: void
		owner F SPA: FRANCE
		owner F SPA/NC: FRANCE
		owner F SPA/SC: none
		owner F LYO: none
	`},
	// 6.B.12. ARMY MOVEMENT WITH COASTAL SPECIFICATION
	// For armies the coasts are irrelevant:
	// France: A Gascony - Spain(nc)
	// If only perfect orders are accepted, then the move will fail. But it is also possible that coasts are
	// ignored in this case and a move will be attempted (see issue 4.B.6).
	// I prefer that a move will be attempted.
	{id: "6.B.12", title: "ARMY MOVEMENT WITH COASTAL SPECIFICATION", script: `
		units FRANCE: A GAS
		orders FRANCE: A GAS - SPA/NC
		process
		result M A GAS: ok
		owner A GAS: none
		owner A SPA: FRANCE
		owner A SPA/NC: none
		owner A SPA/SC: none
	`},
	// 6.B.13. COASTAL CRAWL NOT ALLOWED
	// If a fleet is leaving a sector from a certain coast while in the opposite direction another fleet
	// is moving to another coast of the sector, it is still a head to head battle. This has been decided in
	// the great revision of the 1961 rules that resulted in the 1971 rules.
	// Turkey: F Bulgaria(sc) - Constantinople
	// Turkey: F Constantinople - Bulgaria(ec)
	// Both moves fail.
	{id: "6.B.13", title: "COASTAL CRAWL NOT ALLOWED", script: `
		units TURKEY: F BUL/SC, F CON
		orders TURKEY: F BUL/SC - CON; F CON - BUL/EC
		process
		result M F BUL/SC: bounce
		result M F CON: bounce
		owner F BUL/SC: TURKEY
		owner F CON: TURKEY
		owner F BUL/EC: none
	`},
	// 6.B.14. BUILDING WITH UNSPECIFIED COAST
	// Coast must be specified in certain build cases:
	// Russia: Build F St Petersburg
	// If no default coast is taken (see issue 4.B.7), the build fails.
	// I do not like default coast, so I prefer that the build fails.
	{id: "6.B.14", title: "BUILDING WITH UNSPECIFIED COAST", script: `
		centers RUSSIA: STP
		phase W1901A
		orders RUSSIA: F STP B
		process
		result A F STP: void
		owner F STP: none
		owner F STP/SC: none
		owner F STP/NC: none
	`},
	// 6.B.15. SUPPORTING FOREIGN UNIT WITH UNSPECIFIED COAST
	// Opinions differ on this.
	// France: F Portugal Supports F Mid-Atlantic Ocean - Spain
	// England: F Mid-Atlantic Ocean - Spain(nc)
	// Italy: F Gulf of Lyon Supports F Western Mediterranean - Spain(sc)
	// Italy: F Western Mediterranean - Spain(sc)
	// See issue 4.B.4.
	// Although the move to the north coast of Spain might be a surprise for France, it is hard to believe that
	// England somehow tricked France. Therefore, I prefer that the support succeeds and the Italian fleet in the
	// Western Mediterranean bounces. However, if orders are checked on submission (such as in webbased play),
	// support without coast should not be given as an option.
	// (Preferred, taken here: a support matches a move to any coast of the province it names.)
	{id: "6.B.15", title: "SUPPORTING FOREIGN UNIT WITH UNSPECIFIED COAST", script: `
		units FRANCE: F POR
		units ENGLAND: F MAO
		units ITALY: F LYO, F WES
		orders FRANCE: F POR S F MAO - SPA
		orders ENGLAND: F MAO - SPA/NC
		orders ITALY: F LYO S F WES - SPA/SC; F WES - SPA/SC
		process
		result M F POR: ok
		result M F MAO: bounce
		result M F LYO: ok
		result M F WES: bounce
		owner F MAO: ENGLAND
		owner F WES: ITALY
		owner F SPA: none
	`},
	// 6.C.1. THREE ARMY CIRCULAR MOVEMENT
	// Three units can change place, even in spring 1901.
	// Turkey: F Ankara - Constantinople
	// Turkey: A Constantinople - Smyrna
	// Turkey: A Smyrna - Ankara
	// All three units will move.
	{id: "6.C.1", title: "THREE ARMY CIRCULAR MOVEMENT", script: `
		units TURKEY: F ANK, A CON, A SMY
		orders TURKEY: F ANK - CON; A CON - SMY; A SMY - ANK
		process
		result M F ANK: ok
		result M A CON: ok
		result M A SMY: ok
		owner A ANK: TURKEY
		owner F CON: TURKEY
		owner A SMY: TURKEY
	`},
	// 6.C.2. THREE ARMY CIRCULAR MOVEMENT WITH SUPPORT
	// Three units can change place, even when one gets support.
	// Turkey: F Ankara - Constantinople
	// Turkey: A Constantinople - Smyrna
	// Turkey: A Smyrna - Ankara
	// Turkey: A Bulgaria Supports F Ankara - Constantinople
	// Of course the three units will move, but knowing how programs are written, this can confuse the adjudicator.
	{id: "6.C.2", title: "THREE ARMY CIRCULAR MOVEMENT WITH SUPPORT", script: `
		units TURKEY: F ANK, A CON, A SMY, A BUL
		orders TURKEY: F ANK - CON; A CON - SMY; A SMY - ANK; A BUL S F ANK - CON
		process
		result M F ANK: ok
		result M A CON: ok
		result M A SMY: ok
		result M A BUL: ok
		owner A ANK: TURKEY
		owner F CON: TURKEY
		owner A SMY: TURKEY
		owner A BUL: TURKEY
	`},
	// 6.C.3. A DISRUPTED THREE ARMY CIRCULAR MOVEMENT
	// When one of the units bounces, the whole circular movement will hold.
	// Turkey: F Ankara - Constantinople
	// Turkey: A Constantinople - Smyrna
	// Turkey: A Smyrna - Ankara
	// Turkey: A Bulgaria - Constantinople
	// Every unit will keep its place.
	{id: "6.C.3", title: "A DISRUPTED THREE ARMY CIRCULAR MOVEMENT", script: `
		units TURKEY: F ANK, A CON, A SMY, A BUL
		orders TURKEY: F ANK - CON; A CON - SMY; A SMY - ANK; A BUL - CON
		process
		result M F ANK: bounce
		result M A CON: bounce
		result M A SMY: bounce
		result M A BUL: bounce
		owner F ANK: TURKEY
		owner A CON: TURKEY
		owner A SMY: TURKEY
		owner A BUL: TURKEY
	`},
	// 6.C.4. A CIRCULAR MOVEMENT WITH ATTACKED CONVOY
	// When the circular movement contains an attacked convoy, the circular movement succeeds.
	// The adjudication algorithm should handle attack of convoys before calculating circular movement.
	// Austria: A Trieste - Serbia
	// Austria: A Serbia - Bulgaria
	// Turkey: A Bulgaria - Trieste
	// Turkey: F Aegean Sea Convoys A Bulgaria - Trieste
	// Turkey: F Ionian Sea Convoys A Bulgaria - Trieste
	// Turkey: F Adriatic Sea Convoys A Bulgaria - Trieste
	// Italy: F Naples - Ionian Sea
	// The fleet in the Ionian Sea is attacked but not dislodged. The circular movement succeeds.
	// The Austrian and Turkish armies will advance.
	{id: "6.C.4", title: "A CIRCULAR MOVEMENT WITH ATTACKED CONVOY", script: `
		units AUSTRIA: A TRI, A SER
		units TURKEY: A BUL, F AEG, F ION, F ADR
		units ITALY: F NAP
		orders AUSTRIA: A TRI - SER; A SER - BUL
		orders TURKEY: A BUL - TRI; F AEG C A BUL - TRI; F ION C A BUL - TRI; F ADR C A BUL - TRI
		orders ITALY: F NAP - ION
		process
		result M A TRI: ok
		result M A SER: ok
		result M A BUL: ok
		result M F AEG: ok
		result M F ION: ok
		result M F ADR: ok
		result M F NAP: bounce
		owner A TRI: TURKEY
		owner A SER: AUSTRIA
		owner A BUL: AUSTRIA
		owner F AEG: TURKEY
		owner F ION: TURKEY
		owner F ADR: TURKEY
		owner F NAP: ITALY
	`},
	// 6.C.5. A DISRUPTED CIRCULAR MOVEMENT DUE TO DISLODGED CONVOY
	// When the circular movement contains a convoy, the circular movement is disrupted when the convoying
	// fleet is dislodged. The adjudication algorithm should disrupt convoys before calculating circular movement.
	// Austria: A Trieste - Serbia
	// Austria: A Serbia - Bulgaria
	// Turkey: A Bulgaria - Trieste
	// Turkey: F Aegean Sea Convoys A Bulgaria - Trieste
	// Turkey: F Ionian Sea Convoys A Bulgaria - Trieste
	// Turkey: F Adriatic Sea Convoys A Bulgaria - Trieste
	// Italy: F Naples - Ionian Sea
	// Italy: F Tunis Supports F Naples - Ionian Sea
	// Due to the dislodged convoying fleet, all Austrian and Turkish armies will not move.
	{id: "6.C.5", title: "A DISRUPTED CIRCULAR MOVEMENT DUE TO DISLODGED CONVOY", script: `
		units AUSTRIA: A TRI, A SER
		units TURKEY: A BUL, F AEG, F ION, F ADR
		units ITALY: F NAP, F TUN
		orders AUSTRIA: A TRI - SER; A SER - BUL
		orders TURKEY: A BUL - TRI; F AEG C A BUL - TRI; F ION C A BUL - TRI; F ADR C A BUL - TRI
		orders ITALY: F NAP - ION; F TUN S F NAP - ION
		process
		result M A TRI: bounce
		result M A SER: bounce
		result M A BUL: no_convoy
		result M F AEG: no_convoy
		result M F ION: dislodged
		result M F ADR: no_convoy
		result M F NAP: ok
		result M F TUN: ok
		dislodged F ION by NAP
		owner A TRI: AUSTRIA
		owner A SER: AUSTRIA
		owner A BUL: TURKEY
		owner F AEG: TURKEY
		owner F ION: ITALY
		owner F ADR: TURKEY
		owner F NAP: none
		owner F TUN: ITALY
	`},
	// 6.C.6. TWO ARMIES WITH TWO CONVOYS
	// Two armies can swap places even when they are not adjacent.
	// England: F North Sea Convoys A London - Belgium
	// England: A London - Belgium
	// France: F English Channel Convoys A Belgium - London
	// France: A Belgium - London
	// Both convoys should succeed.
	{id: "6.C.6", title: "TWO ARMIES WITH TWO CONVOYS", script: `
		units ENGLAND: F NTH, A LON
		units FRANCE: F ENG, A BEL
		orders ENGLAND: F NTH C A LON - BEL; A LON - BEL
		orders FRANCE: F ENG C A BEL - LON; A BEL - LON
		process
		result M F NTH: ok
		result M A LON: ok
		result M F ENG: ok
		result M A BEL: ok
		owner F NTH: ENGLAND
		owner A BEL: ENGLAND
		owner F ENG: FRANCE
		owner A LON: FRANCE
	`},
	// 6.C.7. DISRUPTED UNIT SWAP
	// If in a swap one of the unit bounces, then the swap fails.
	// England: F North Sea Convoys A London - Belgium
	// England: A London - Belgium
	// France: F English Channel Convoys A Belgium - London
	// France: A Belgium - London
	// France: A Burgundy - Belgium
	// None of the units will succeed to move.
	{id: "6.C.7", title: "DISRUPTED UNIT SWAP", script: `
		units ENGLAND: F NTH, A LON
		units FRANCE: F ENG, A BEL, A BUR
		orders ENGLAND: F NTH C A LON - BEL; A LON - BEL
		orders FRANCE: F ENG C A BEL - LON; A BEL - LON; A BUR - BEL
		process
		result M F NTH: ok
		result M A LON: bounce
		result M F ENG: ok
		result M A BEL: bounce
		result M A BUR: bounce
		owner F NTH: ENGLAND
		owner A LON: ENGLAND
		owner F ENG: FRANCE
		owner A BEL: FRANCE
		owner A BUR: FRANCE
	`},
	// 6.C.8. NO SELF DISLODGEMENT IN DISRUPTED CIRCULAR MOVEMENT
	// Self dislodgement is prohibited, also in circular movement.
	// Turkey: F Constantinople - Black Sea
	// Turkey: A Bulgaria - Constantinople
	// Turkey: A Smyrna Supports A Bulgaria - Constantinople
	// Russia: F Black Sea - Bulgaria(ec)
	// Austria: A Serbia - Bulgaria
	// The circular movement is disrupted by the army in Serbia. The army in Bulgaria may not dislodge the own
	// fleet in Constantinople. None of the units will succeed to move.
	{id: "6.C.8", title: "NO SELF DISLODGEMENT IN DISRUPTED CIRCULAR MOVEMENT", script: `
		units TURKEY: F CON, A BUL, A SMY
		units RUSSIA: F BLA
		units AUSTRIA: A SER
		orders TURKEY: F CON - BLA; A BUL - CON; A SMY S A BUL - CON
		orders RUSSIA: F BLA - BUL/EC
		orders AUSTRIA: A SER - BUL
		process
		result M F CON: bounce
		result M A BUL: bounce
		result M F BLA: bounce
		result M A SER: bounce
		owner F CON: TURKEY
		owner A BUL: TURKEY
		owner A SMY: TURKEY
		owner F BLA: RUSSIA
		owner A SER: AUSTRIA
	`},
	// 6.C.9. NO HELP IN DISLODGEMENT OF OWN UNIT IN DISRUPTED CIRCULAR MOVEMENT
	// Helping to dislodge your own unit is prohibited as usual in circular movement.
	// Turkey: F Constantinople - Black Sea
	// Turkey: A Smyrna Supports A Bulgaria - Constantinople
	// Russia: F Black Sea - Bulgaria(ec)
	// Austria: A Serbia - Bulgaria
	// Austria: A Bulgaria - Constantinople
	// None of the units will succeed to move.
	{id: "6.C.9", title: "NO HELP IN DISLODGEMENT OF OWN UNIT IN DISRUPTED CIRCULAR MOVEMENT", script: `
		units TURKEY: F CON, A SMY
		units RUSSIA: F BLA
		units AUSTRIA: A SER, A BUL
		orders TURKEY: F CON - BLA; A SMY S A BUL - CON
		orders RUSSIA: F BLA - BUL/EC
		orders AUSTRIA: A SER - BUL; A BUL - CON
		process
		result M F CON: bounce
		result M A BUL: bounce
		result M F BLA: bounce
		result M A SER: bounce
		owner F CON: TURKEY
		owner A BUL: AUSTRIA
		owner A SMY: TURKEY
		owner F BLA: RUSSIA
		owner A SER: AUSTRIA
	`},
	// 6.D.1. SUPPORTED HOLD CAN PREVENT DISLODGEMENT
	// The most simple support to hold order.
	// Austria: F Adriatic Sea Supports A Trieste - Venice
	// Austria: A Trieste - Venice
	// Italy: A Venice Hold
	// Italy: A Tyrolia Supports A Venice
	// The support of Tyrolia prevents that the army in Venice is dislodged. The army in Trieste will not move.
	{id: "6.D.1", title: "SUPPORTED HOLD CAN PREVENT DISLODGEMENT", script: `
		units AUSTRIA: F ADR, A TRI
		units ITALY: A VEN, A TYR
		orders AUSTRIA: F ADR S A TRI - VEN; A TRI - VEN
		orders ITALY: A VEN H; A TYR S A VEN
		process
		result M F ADR: ok
		result M A TRI: bounce
		result M A VEN: ok
		result M A TYR: ok
		owner F ADR: AUSTRIA
		owner A TRI: AUSTRIA
		owner A VEN: ITALY
		owner A TYR: ITALY
	`},
	// 6.D.2. A MOVE CUTS SUPPORT ON HOLD
	// The most simple support on hold cut.
	// Austria: F Adriatic Sea Supports A Trieste - Venice
	// Austria: A Trieste - Venice
	// Austria: A Vienna - Tyrolia
	// Italy: A Venice Hold
	// Italy: A Tyrolia Supports A Venice
	// The support of Tyrolia is cut by the army in Vienna. That means that the army in Venice is dislodged by the
	// army from Trieste.
	{id: "6.D.2", title: "A MOVE CUTS SUPPORT ON HOLD", script: `
		units AUSTRIA: F ADR, A TRI, A VIE
		units ITALY: A VEN, A TYR
		orders AUSTRIA: F ADR S A TRI - VEN; A TRI - VEN; A VIE - TYR
		orders ITALY: A VEN H; A TYR S A VEN
		process
		result M F ADR: ok
		result M A TRI: ok
		result M A VIE: bounce
		result M A VEN: dislodged
		result M A TYR: cut
		dislodged A VEN by TRI
		owner F ADR: AUSTRIA
		owner A TRI: none
		owner A VIE: AUSTRIA
		owner A VEN: AUSTRIA
		owner A TYR: ITALY
	`},
	// 6.D.3. A MOVE CUTS SUPPORT ON MOVE
	// The most simple support on move cut.
	// Austria: F Adriatic Sea Supports A Trieste - Venice
	// Austria: A Trieste - Venice
	// Italy: A Venice Hold
	// Italy: F Ionian Sea - Adriatic Sea
	// The support of the fleet in the Adriatic Sea is cut. That means that the army in Venice will not be
	// dislodged and the army in Trieste stays in Trieste.
	{id: "6.D.3", title: "A MOVE CUTS SUPPORT ON MOVE", script: `
		units AUSTRIA: F ADR, A TRI
		units ITALY: A VEN, F ION
		orders AUSTRIA: F ADR S A TRI - VEN; A TRI - VEN
		orders ITALY: A VEN H; F ION - ADR
		process
		result M F ADR: cut
		result M A TRI: bounce
		result M A VEN: ok
		result M F ION: bounce
		owner F ADR: AUSTRIA
		owner A TRI: AUSTRIA
		owner A VEN: ITALY
		owner F ION: ITALY
	`},
	// 6.D.4. SUPPORT TO HOLD ON UNIT SUPPORTING A HOLD ALLOWED
	// A unit that is supporting a hold, can receive a hold support.
	// Germany: A Berlin Supports F Kiel
	// Germany: F Kiel Supports A Berlin
	// Russia: F Baltic Sea Supports A Prussia - Berlin
	// Russia: A Prussia - Berlin
	// The Russian move from Prussia to Berlin fails.
	{id: "6.D.4", title: "SUPPORT TO HOLD ON UNIT SUPPORTING A HOLD ALLOWED", script: `
		units GERMANY: A BER, F KIE
		units RUSSIA: F BAL, A PRU
		orders GERMANY: A BER S F KIE; F KIE S A BER
		orders RUSSIA: F BAL S A PRU - BER; A PRU - BER
		process
		result M A BER: cut
		result M F KIE: ok
		result M F BAL: ok
		result M A PRU: bounce
		owner A BER: GERMANY
		owner F KIE: GERMANY
		owner F BAL: RUSSIA
		owner A PRU: RUSSIA
	`},
	// 6.D.5. SUPPORT TO HOLD ON UNIT SUPPORTING A MOVE ALLOWED
	// A unit that is supporting a move, can receive a hold support.
	// Germany: A Berlin Supports A Munich - Silesia
	// Germany: F Kiel Supports A Berlin
	// Germany: A Munich - Silesia
	// Russia: F Baltic Sea Supports A Prussia - Berlin
	// Russia: A Prussia - Berlin
	// The Russian move from Prussia to Berlin fails.
	{id: "6.D.5", title: "SUPPORT TO HOLD ON UNIT SUPPORTING A MOVE ALLOWED", script: `
		units GERMANY: A BER, F KIE, A MUN
		units RUSSIA: F BAL, A PRU
		orders GERMANY: A BER S A MUN - SIL; F KIE S A BER; A MUN - SIL
		orders RUSSIA: F BAL S A PRU - BER; A PRU - BER
		process
		result M A BER: cut
		result M F KIE: ok
		result M A MUN: ok
		result M F BAL: ok
		result M A PRU: bounce
		owner A BER: GERMANY
		owner F KIE: GERMANY
		owner A MUN: none
		owner F BAL: RUSSIA
		owner A PRU: RUSSIA
		owner A SIL: GERMANY
	`},
	// 6.D.6. SUPPORT TO HOLD ON CONVOYING UNIT ALLOWED
	// A unit that is convoying, can receive a hold support.
	// Germany: A Berlin - Sweden
	// Germany: F Baltic Sea Convoys A Berlin - Sweden
	// Germany: F Prussia Supports F Baltic Sea
	// Russia: F Livonia - Baltic Sea
	// Russia: F Gulf of Bothnia Supports F Livonia - Baltic Sea
	// The Russian move from Livonia to the Baltic Sea fails. The convoy from Berlin to Sweden succeeds.
	{id: "6.D.6", title: "SUPPORT TO HOLD ON CONVOYING UNIT ALLOWED", script: `
		units GERMANY: A BER, F BAL, F PRU
		units RUSSIA: F LVN, F BOT
		orders GERMANY: A BER - SWE; F BAL C A BER - SWE; F PRU S F BAL
		orders RUSSIA: F LVN - BAL; F BOT S F LVN - BAL
		process
		result M A BER: ok
		result M F BAL: ok
		result M F PRU: ok
		result M F LVN: bounce
		result M F BOT: ok
		owner A BER: none
		owner F BAL: GERMANY
		owner F PRU: GERMANY
		owner F LVN: RUSSIA
		owner F BOT: RUSSIA
		owner A SWE: GERMANY
	`},
	// 6.D.7. SUPPORT TO HOLD ON MOVING UNIT NOT ALLOWED
	// A unit that is moving, can not receive a hold support for the situation that the move fails.
	// Germany: F Baltic Sea - Sweden
	// Germany: F Prussia Supports F Baltic Sea
	// Russia: F Livonia - Baltic Sea
	// Russia: F Gulf of Bothnia Supports F Livonia - Baltic Sea
	// Russia: A Finland - Sweden
	// The support of the fleet in Prussia fails. The fleet in Baltic Sea will bounce on the Russian army
	// in Finland and will be dislodged by the Russian fleet from Livonia when it returns to the Baltic Sea.
	{id: "6.D.7", title: "SUPPORT TO HOLD ON MOVING UNIT NOT ALLOWED", script: `
		units GERMANY: F BAL, F PRU
		units RUSSIA: F LVN, F BOT, A FIN
		orders GERMANY: F BAL - SWE; F PRU S F BAL
		orders RUSSIA: F LVN - BAL; F BOT S F LVN - BAL; A FIN - SWE
		process
		result M F BAL: bounce
		result M F BAL: dislodged
		result M F PRU: void
		result M F LVN: ok
		result M F BOT: ok
		result M A FIN: bounce
		dislodged F BAL by LVN
		owner F BAL: RUSSIA
		owner F PRU: GERMANY
		owner F LVN: none
		owner F BOT: RUSSIA
		owner A FIN: RUSSIA
		owner A SWE: none
	`},
	// 6.D.8. FAILED CONVOY CAN NOT RECEIVE HOLD SUPPORT
	// If a convoy fails because of disruption of the convoy or when the right convoy orders are not given,
	// then the army to be convoyed can not receive support in hold, since it still tried to move.
	// Austria: F Ionian Sea Hold
	// Austria: A Serbia Supports A Albania - Greece
	// Austria: A Albania - Greece
	// Turkey: A Greece - Naples
	// Turkey: A Bulgaria Supports A Greece
	// There was a possible convoy from Greece to Naples, before the orders were made public (via the Ionian Sea).
	// This means that the order of Greece to Naples should never be treated as illegal order and be changed in a
	// hold order able to receive hold support (see also issue VI.A). Therefore, the support in Bulgaria fails and
	// the army in Greece is dislodged by the army in Albania.
	{id: "6.D.8", title: "FAILED CONVOY CAN NOT RECEIVE HOLD SUPPORT", script: `
		units AUSTRIA: F ION, A SER, A ALB
		units TURKEY: A GRE, A BUL
		orders AUSTRIA: F ION H; A SER S A ALB - GRE; A ALB - GRE
		orders TURKEY: A GRE - NAP; A BUL S A GRE
		process
		result M F ION: ok
		result M A SER: ok
		result M A ALB: ok
		result M A GRE: dislodged
		result M A BUL: void
		dislodged A GRE by ALB
		owner F ION: AUSTRIA
		owner A SER: AUSTRIA
		owner A ALB: none
		owner A GRE: AUSTRIA
		owner A BUL: TURKEY
	`},
	// 6.D.9. SUPPORT TO MOVE ON HOLDING UNIT NOT ALLOWED
	// A unit that is holding can not receive a support in moving.
	// Italy: A Venice - Trieste
	// Italy: A Tyrolia Supports A Venice - Trieste
	// Austria: A Albania Supports A Trieste - Serbia
	// Austria: A Trieste Hold
	// The support of the army in Albania fails and the army in Trieste is dislodged by the army from Venice.
	{id: "6.D.9", title: "SUPPORT TO MOVE ON HOLDING UNIT NOT ALLOWED", script: `
		units ITALY: A VEN, A TYR
		units AUSTRIA: A ALB, A TRI
		orders ITALY: A VEN - TRI; A TYR S A VEN - TRI
		orders AUSTRIA: A ALB S A TRI - SER; A TRI H
		process
		result M A VEN: ok
		result M A TYR: ok
		result M A ALB: void
		result M A TRI: dislodged
		dislodged A TRI by VEN
		owner A VEN: none
		owner A TYR: ITALY
		owner A ALB: AUSTRIA
		owner A TRI: ITALY
	`},
	// 6.D.10. SELF DISLODGMENT PROHIBITED
	// A unit may not dislodge a unit of the same great power.
	// Germany: A Berlin Hold
	// Germany: F Kiel - Berlin
	// Germany: A Munich Supports F Kiel - Berlin
	// Move to Berlin fails.
	{id: "6.D.10", title: "SELF DISLODGMENT PROHIBITED", script: `
		units GERMANY: A BER, F KIE, A MUN
		orders GERMANY: A BER H; F KIE - BER; A MUN S F KIE - BER
		process
		result M A BER: ok
		result M F KIE: bounce
		result M A MUN: void
		owner A BER: GERMANY
		owner F KIE: GERMANY
		owner A MUN: GERMANY
	`},
	// 6.D.11. NO SELF DISLODGMENT OF RETURNING UNIT
	// Idem.
	// Germany: A Berlin - Prussia
	// Germany: F Kiel - Berlin
	// Germany: A Munich Supports F Kiel - Berlin
	// Russia: A Warsaw - Prussia
	// Army in Berlin bounces, but is not dislodged by own unit.
	{id: "6.D.11", title: "NO SELF DISLODGMENT OF RETURNING UNIT", script: `
		units GERMANY: A BER, F KIE, A MUN
		units RUSSIA: A WAR
		orders GERMANY: A BER - PRU; F KIE - BER; A MUN S F KIE - BER
		orders RUSSIA: A WAR - PRU
		process
		result M A BER: bounce
		result M F KIE: bounce
		result M A MUN: void
		result M A WAR: bounce
		owner A BER: GERMANY
		owner F KIE: GERMANY
		owner A MUN: GERMANY
		owner A WAR: RUSSIA
	`},
	// 6.D.12. SUPPORTING A FOREIGN UNIT TO DISLODGE OWN UNIT PROHIBITED
	// You may not help another power in dislodging your own unit.
	// Austria: F Trieste Hold
	// Austria: A Vienna Supports A Venice - Trieste
	// Italy: A Venice - Trieste
	// No dislodgment of fleet in Trieste.
	{id: "6.D.12", title: "SUPPORTING A FOREIGN UNIT TO DISLODGE OWN UNIT PROHIBITED", script: `
		units AUSTRIA: F TRI, A VIE
		units ITALY: A VEN
		orders AUSTRIA: F TRI H; A VIE S A VEN - TRI
		orders ITALY: A VEN - TRI
		process
		result M F TRI: ok
		result M A VIE: void
		result M A VEN: bounce
		owner F TRI: AUSTRIA
		owner A VIE: AUSTRIA
		owner A VEN: ITALY
	`},
	// 6.D.13. SUPPORTING A FOREIGN UNIT TO DISLODGE A RETURNING OWN UNIT PROHIBITED
	// Idem.
	// Austria: F Trieste - Adriatic Sea
	// Austria: A Vienna Supports A Venice - Trieste
	// Italy: A Venice - Trieste
	// Italy: F Apulia - Adriatic Sea
	// No dislodgment of fleet in Trieste.
	{id: "6.D.13", title: "SUPPORTING A FOREIGN UNIT TO DISLODGE A RETURNING OWN UNIT PROHIBITED", script: `
		units AUSTRIA: F TRI, A VIE
		units ITALY: A VEN, F APU
		orders AUSTRIA: F TRI - ADR; A VIE S A VEN - TRI
		orders ITALY: A VEN - TRI; F APU - ADR
		process
		result M F TRI: bounce
		result M A VIE: void
		result M A VEN: bounce
		result M F APU: bounce
		owner F TRI: AUSTRIA
		owner A VIE: AUSTRIA
		owner A VEN: ITALY
		owner F APU: ITALY
	`},
	// 6.D.14. SUPPORTING A FOREIGN UNIT IS NOT ENOUGH TO PREVENT DISLODGEMENT
	// If a foreign unit has enough support to dislodge your unit, you may not prevent that dislodgement by
	// supporting the attack.
	// Austria: F Trieste Hold
	// Austria: A Vienna Supports A Venice - Trieste
	// Italy: A Venice - Trieste
	// Italy: A Tyrolia Supports A Venice - Trieste
	// Italy: F Adriatic Sea Supports A Venice - Trieste
	// The fleet in Trieste is dislodged.
	{id: "6.D.14", title: "SUPPORTING A FOREIGN UNIT IS NOT ENOUGH TO PREVENT DISLODGEMENT", script: `
		units AUSTRIA: F TRI, A VIE
		units ITALY: A VEN, A TYR, F ADR
		orders AUSTRIA: F TRI H; A VIE S A VEN - TRI
		orders ITALY: A VEN - TRI; A TYR S A VEN - TRI; F ADR S A VEN - TRI
		process
		result M F TRI: dislodged
		result M A VIE: void
		result M A VEN: ok
		result M A TYR: ok
		result M F ADR: ok
		dislodged F TRI by VEN
		owner A TRI: ITALY
		owner A VIE: AUSTRIA
		owner A VEN: none
		owner A TYR: ITALY
		owner F ADR: ITALY
	`},
	// 6.D.15. DEFENDER CAN NOT CUT SUPPORT FOR ATTACK ON ITSELF
	// A unit that is attacked by a supported unit can not prevent dislodgement by guessing which of the units
	// will do the support.
	// Russia: F Constantinople Supports F Black Sea - Ankara
	// Russia: F Black Sea - Ankara
	// Turkey: F Ankara - Constantinople
	// The support of Constantinople is not cut and the fleet in Ankara is dislodged by the fleet in the Black Sea.
	{id: "6.D.15", title: "DEFENDER CAN NOT CUT SUPPORT FOR ATTACK ON ITSELF", script: `
		units RUSSIA: F CON, F BLA
		units TURKEY: F ANK
		orders RUSSIA: F CON S F BLA - ANK; F BLA - ANK
		orders TURKEY: F ANK - CON
		process
		result M F CON: ok
		result M F BLA: ok
		result M F ANK: bounce
		result M F ANK: dislodged
		dislodged F ANK by BLA
		owner F CON: RUSSIA
		owner F BLA: none
		owner F ANK: RUSSIA
	`},
	// 6.D.16. CONVOYING A UNIT DISLODGING A UNIT OF SAME POWER IS ALLOWED
	// It is allowed to convoy a foreign unit that dislodges your own unit is allowed.
	// England: A London Hold
	// England: F North Sea Convoys A Belgium - London
	// France: F English Channel Supports A Belgium - London
	// France: A Belgium - London
	// The English army in London is dislodged by the French army coming from Belgium.
	{id: "6.D.16", title: "CONVOYING A UNIT DISLODGING A UNIT OF SAME POWER IS ALLOWED", script: `
		units ENGLAND: A LON, F NTH
		units FRANCE: F ENG, A BEL
		orders ENGLAND: A LON H; F NTH C A BEL - LON
		orders FRANCE: F ENG S A BEL - LON; A BEL - LON
		process
		result M A LON: dislodged
		result M F NTH: ok
		result M F ENG: ok
		result M A BEL: ok
		dislodged A LON by BEL
		owner A LON: FRANCE
		owner F NTH: ENGLAND
		owner F ENG: FRANCE
		owner A BEL: none
	`},
	// 6.D.17. DISLODGEMENT CUTS SUPPORTS
	// The famous dislodge rule.
	// Russia: F Constantinople Supports F Black Sea - Ankara
	// Russia: F Black Sea - Ankara
	// Turkey: F Ankara - Constantinople
	// Turkey: A Smyrna Supports F Ankara - Constantinople
	// Turkey: A Armenia - Ankara
	// The Russian fleet in Constantinople is dislodged. This cuts the support to from Black Sea to Ankara.
	// Black Sea will bounce with the army from Armenia.
	{id: "6.D.17", title: "DISLODGEMENT CUTS SUPPORTS", script: `
		units RUSSIA: F CON, F BLA
		units TURKEY: F ANK, A SMY, A ARM
		orders RUSSIA: F CON S F BLA - ANK; F BLA - ANK
		orders TURKEY: F ANK - CON; A SMY S F ANK - CON; A ARM - ANK
		process
		result M F CON: dislodged
		result M F CON: cut
		result M F BLA: bounce
		result M F ANK: ok
		result M A SMY: ok
		result M A ARM: bounce
		dislodged F CON by ANK
		owner F CON: TURKEY
		owner F BLA: RUSSIA
		owner F ANK: none
		owner A SMY: TURKEY
		owner A ARM: TURKEY
	`},
	// 6.D.18. A SURVIVING UNIT WILL SUSTAIN SUPPORT
	// Idem. But now with an additional hold that prevents dislodgement.
	// Russia: F Constantinople Supports F Black Sea - Ankara
	// Russia: F Black Sea - Ankara
	// Russia: A Bulgaria Supports F Constantinople
	// Turkey: F Ankara - Constantinople
	// Turkey: A Smyrna Supports F Ankara - Constantinople
	// Turkey: A Armenia - Ankara
	// The Russian fleet in the Black Sea will dislodge the Turkish fleet in Ankara.
	{id: "6.D.18", title: "A SURVIVING UNIT WILL SUSTAIN SUPPORT", script: `
		units RUSSIA: F CON, F BLA, A BUL
		units TURKEY: F ANK, A SMY, A ARM
		orders RUSSIA: F CON S F BLA - ANK; F BLA - ANK; A BUL S F CON
		orders TURKEY: F ANK - CON; A SMY S F ANK - CON; A ARM - ANK
		process
		result M F CON: ok
		result M F BLA: ok
		result M A BUL: ok
		result M F ANK: dislodged
		result M A SMY: ok
		result M A ARM: bounce
		dislodged F ANK by BLA
		owner F CON: RUSSIA
		owner F BLA: none
		owner A BUL: RUSSIA
		owner F ANK: RUSSIA
		owner A SMY: TURKEY
		owner A ARM: TURKEY
	`},
	// 6.D.19. EVEN WHEN SURVIVING IS IN ALTERNATIVE WAY
	// Now, the dislodgement is prevented because the supports comes from a Russian army:
	// Russia: F Constantinople Supports F Black Sea - Ankara
	// Russia: F Black Sea - Ankara
	// Russia: A Smyrna Supports F Ankara - Constantinople
	// Turkey: F Ankara - Constantinople
	// The Russian fleet in Constantinople is not dislodged, because one of the support is of Russian origin.
	// The support from Black Sea to Ankara will sustain and the fleet in Ankara will be dislodged.
	{id: "6.D.19", title: "EVEN WHEN SURVIVING IS IN ALTERNATIVE WAY", script: `
		units RUSSIA: F CON, F BLA, A SMY
		units TURKEY: F ANK
		orders RUSSIA: F CON S F BLA - ANK; F BLA - ANK; A SMY S F ANK - CON
		orders TURKEY: F ANK - CON
		process
		result M F CON: ok
		result M F BLA: ok
		result M A SMY: void
		result M F ANK: dislodged
		dislodged F ANK by BLA
		owner F CON: RUSSIA
		owner F BLA: none
		owner A SMY: RUSSIA
		owner F ANK: RUSSIA
	`},
	// 6.D.20. UNIT CAN NOT CUT SUPPORT OF ITS OWN COUNTRY
	// Although this is not mentioned in all rulebooks, it is generally accepted that when a unit attacks
	// another unit of the same Great Power, it will not cut support.
	// England: F London Supports F North Sea - English Channel
	// England: F North Sea - English Channel
	// England: A Yorkshire - London
	// France: F English Channel Hold
	// The army in York does not cut support. This means that the fleet in the English Channel is dislodged by the
	// fleet in the North Sea.
	{id: "6.D.20", title: "UNIT CAN NOT CUT SUPPORT OF ITS OWN COUNTRY", script: `
		units ENGLAND: F LON, F NTH, A YOR
		units FRANCE: F ENG
		orders ENGLAND: F LON S F NTH - ENG; F NTH - ENG; A YOR - LON
		orders FRANCE: F ENG H
		process
		result M F LON: ok
		result M F NTH: ok
		result M A YOR: bounce
		result M F ENG: dislodged
		dislodged F ENG by NTH
		owner F LON: ENGLAND
		owner F NTH: none
		owner A YOR: ENGLAND
		owner F ENG: ENGLAND
	`},
	// 6.D.21. DISLODGING DOES NOT CANCEL A SUPPORT CUT
	// Sometimes there is the question whether a dislodged moving unit does not cut support (similar to the
	// dislodge rule). This is not the case.
	// Austria: F Trieste Hold
	// Italy: A Venice - Trieste
	// Italy: A Tyrolia Supports A Venice - Trieste
	// Germany: A Munich - Tyrolia
	// Russia: A Silesia - Munich
	// Russia: A Berlin Supports A Silesia - Munich
	// Although the German army is dislodged, it still cuts the Italian support. That means that the Austrian
	// Fleet is not dislodged.
	{id: "6.D.21", title: "DISLODGING DOES NOT CANCEL A SUPPORT CUT", script: `
		units AUSTRIA: F TRI
		units ITALY: A VEN, A TYR
		units GERMANY: A MUN
		units RUSSIA: A SIL, A BER
		orders AUSTRIA: F TRI H
		orders ITALY: A VEN - TRI; A TYR S A VEN - TRI
		orders GERMANY: A MUN - TYR
		orders RUSSIA: A SIL - MUN; A BER S A SIL - MUN
		process
		result M F TRI: ok
		result M A VEN: bounce
		result M A TYR: cut
		result M A MUN: dislodged
		result M A SIL: ok
		result M A BER: ok
		dislodged A MUN by SIL
		owner F TRI: AUSTRIA
		owner A VEN: ITALY
		owner A TYR: ITALY
		owner A MUN: RUSSIA
		owner A SIL: none
		owner A BER: RUSSIA
	`},
	// 6.D.22. IMPOSSIBLE FLEET MOVE CAN NOT BE SUPPORTED
	// If a fleet tries moves to a land area it seems pointless to support the fleet, since the move will fail
	// anyway. However, in such case, the support is also invalid for defense purposes.
	// Germany: F Kiel - Munich
	// Germany: A Burgundy Supports F Kiel - Munich
	// Russia: A Munich - Kiel
	// Russia: A Berlin Supports A Munich - Kiel
	// The German move from Kiel to Munich is illegal (fleets can not go to Munich). Therefore, the support from
	// Burgundy fails and the Russian army in Munich will dislodge the fleet in Kiel. Note that the failing of the
	// support is not explicitly mentioned in the rulebooks (the DPTG is more clear about this point). If you take
	// the rulebooks very literally, you might conclude that the fleet in Munich is not dislodged, but this is an
	// incorrect interpretation.
	{id: "6.D.22", title: "IMPOSSIBLE FLEET MOVE CAN NOT BE SUPPORTED", script: `
		units GERMANY: F KIE, A BUR
		units RUSSIA: A MUN, A BER
		orders GERMANY: F KIE - MUN; A BUR S F KIE - MUN
		orders RUSSIA: A MUN - KIE; A BER S A MUN - KIE
		process
		result M F KIE: void
		result M F KIE: dislodged
		result M A BUR: void
		result M A MUN: ok
		result M A BER: ok
		dislodged F KIE by MUN
		owner A KIE: RUSSIA
		owner A BUR: GERMANY
		owner A MUN: none
		owner A BER: RUSSIA
	`},
	// 6.D.23. IMPOSSIBLE COAST MOVE CAN NOT BE SUPPORTED
	// Comparable with the previous test case, but now the fleet move is impossible for coastal reasons.
	// Italy: F Gulf of Lyon - Spain(sc)
	// Italy: F Western Mediterranean Supports F Gulf of Lyon - Spain(sc)
	// France: F Spain(nc) - Gulf of Lyon
	// France: F Marseilles Supports F Spain(nc) - Gulf of Lyon
	// The French move from Spain North Coast to Gulf of Lyon is illegal (wrong coast). Therefore, the support
	// from Marseilles fails and the fleet in Spain is dislodged.
	{id: "6.D.23", title: "IMPOSSIBLE COAST MOVE CAN NOT BE SUPPORTED", script: `
		units ITALY: F LYO, F WES
		units FRANCE: F SPA/NC, F MAR
		orders ITALY: F LYO - SPA/SC; F WES S F LYO - SPA/SC
		orders FRANCE: F SPA/NC - LYO; F MAR S F SPA/NC - LYO
		process
		result M F LYO: ok
		result M F WES: ok
		result M F SPA/NC: void
		result M F SPA/NC: dislodged
		result M F MAR: void
		dislodged F SPA/NC by LYO
		owner F LYO: none
		owner F WES: ITALY
		owner F SPA/NC: none
		owner F SPA/SC: ITALY
		owner F MAR: FRANCE
	`},
	// 6.D.24. IMPOSSIBLE ARMY MOVE CAN NOT BE SUPPORTED
	// Comparable with the previous test case, but now an army tries to move into sea and the support is used in a
	// beleaguered garrison.
	// France: A Marseilles - Gulf of Lyon
	// France: F Spain(sc) Supports A Marseilles - Gulf of Lyon
	// Italy: F Gulf of Lyon Hold
	// Turkey: F Tyrrhenian Sea Supports F Western Mediterranean - Gulf of Lyon
	// Turkey: F Western Mediterranean - Gulf of Lyon
	// The French move from Marseilles to Gulf of Lyon is illegal (an army can not go to sea). Therefore,
	// the support from Spain fails and there is no beleaguered garrison. The fleet in the Gulf of Lyon is
	// dislodged by the Turkish fleet in the Western Mediterranean.
	{id: "6.D.24", title: "IMPOSSIBLE ARMY MOVE CAN NOT BE SUPPORTED", script: `
		units FRANCE: A MAR, F SPA/SC
		units ITALY: F LYO
		units TURKEY: F TYS, F WES
		orders FRANCE: A MAR - LYO; F SPA/SC S A MAR - LYO
		orders ITALY: F LYO H
		orders TURKEY: F TYS S F WES - LYO; F WES - LYO
		process
		result M A MAR: void
		result M F SPA/SC: void
		result M F LYO: dislodged
		result M F TYS: ok
		result M F WES: ok
		dislodged F LYO by WES
		owner A MAR: FRANCE
		owner F SPA/SC: FRANCE
		owner F LYO: TURKEY
		owner F TYS: TURKEY
		owner F WES: none
	`},
	// 6.D.25. FAILING HOLD SUPPORT CAN BE SUPPORTED
	// If an adjudicator fails on one of the previous three test cases, then the bug should be removed with care.
	// A failing move can not be supported, but a failing hold support, because of some preconditions (unmatching
	// order) can still be supported.
	// Germany: A Berlin Supports A Prussia
	// Germany: F Kiel Supports A Berlin
	// Russia: F Baltic Sea Supports A Prussia - Berlin
	// Russia: A Prussia - Berlin
	// Although the support of Berlin on Prussia fails (because of unmatching orders), the support of Kiel on
	// Berlin is still valid. So, Berlin will not be dislodged.
	{id: "6.D.25", title: "FAILING HOLD SUPPORT CAN BE SUPPORTED", script: `
		units GERMANY: A BER, F KIE
		units RUSSIA: F BAL, A PRU
		orders GERMANY: A BER S A PRU; F KIE S A BER
		orders RUSSIA: F BAL S A PRU - BER; A PRU - BER
		process
		result M A BER: void
		result M F KIE: ok
		result M F BAL: ok
		result M A PRU: bounce
		owner A BER: GERMANY
		owner F KIE: GERMANY
		owner F BAL: RUSSIA
		owner A PRU: RUSSIA
	`},
	// 6.D.26. FAILING MOVE SUPPORT CAN BE SUPPORTED
	// Similar as the previous test case, but now with an unmatched support to move.
	// Germany: A Berlin Supports A Prussia - Silesia
	// Germany: F Kiel Supports A Berlin
	// Russia: F Baltic Sea Supports A Prussia - Berlin
	// Russia: A Prussia - Berlin
	// Again, Berlin will not be dislodged.
	{id: "6.D.26", title: "FAILING MOVE SUPPORT CAN BE SUPPORTED", script: `
		units GERMANY: A BER, F KIE
		units RUSSIA: F BAL, A PRU
		orders GERMANY: A BER S A PRU - SIL; F KIE S A BER
		orders RUSSIA: F BAL S A PRU - BER; A PRU - BER
		process
		result M A BER: void
		result M F KIE: ok
		result M F BAL: ok
		result M A PRU: bounce
		owner A BER: GERMANY
		owner F KIE: GERMANY
		owner F BAL: RUSSIA
		owner A PRU: RUSSIA
	`},
	// 6.D.27. FAILING CONVOY CAN BE SUPPORTED
	// Similar as the previous test case, but now with an unmatched convoy.
	// England: F Sweden - Baltic Sea
	// England: F Denmark Supports F Sweden - Baltic Sea
	// Germany: A Berlin Hold
	// Russia: F Baltic Sea Convoys A Berlin - Livonia
	// Russia: F Prussia Supports F Baltic Sea
	// The convoy order in the Baltic Sea is unmatched and fails. However, the support of Prussia on the Baltic Sea
	// is still valid and the fleet in the Baltic Sea is not dislodged.
	{id: "6.D.27", title: "FAILING CONVOY CAN BE SUPPORTED", script: `
		units ENGLAND: F SWE, F DEN
		units GERMANY: A BER
		units RUSSIA: F BAL, F PRU
		orders ENGLAND: F SWE - BAL; F DEN S F SWE - BAL
		orders GERMANY: A BER H
		orders RUSSIA: F BAL C A BER - LVN; F PRU S F BAL
		process
		result M F SWE: bounce
		result M F DEN: ok
		result M A BER: ok
		result M F BAL: void
		result M F PRU: ok
		owner F SWE: ENGLAND
		owner F DEN: ENGLAND
		owner A BER: GERMANY
		owner F BAL: RUSSIA
		owner F PRU: RUSSIA
	`},
	// 6.D.28. IMPOSSIBLE MOVE AND SUPPORT
	// If a move is impossible then it can be treated as "illegal", which makes a hold support possible.
	// Austria: A Budapest Supports F Rumania
	// Russia: F Rumania - Holland
	// Turkey: F Black Sea - Rumania
	// Turkey: A Bulgaria Supports F Black Sea - Rumania
	// The move of the Russian fleet is impossible. But the question is, whether it is "illegal" (see issue 4.E.1).
	// If the move is "illegal" it must be ignored and that makes the hold support of the army in Budapest valid
	// and the fleet in Rumania will not be dislodged.
	// I prefer that the move is "illegal", which means that the fleet in the Black Sea does not dislodge the
	// supported Russian fleet.
	{id: "6.D.28", title: "IMPOSSIBLE MOVE AND SUPPORT", script: `
		units AUSTRIA: A BUD
		units RUSSIA: F RUM
		units TURKEY: F BLA, A BUL
		orders AUSTRIA: A BUD S F RUM
		orders RUSSIA: F RUM - HOL
		orders TURKEY: F BLA - RUM; A BUL S F BLA - RUM
		process
		result M A BUD: ok
		result M F RUM: void
		result M F BLA: bounce
		result M A BUL: ok
		owner A BUD: AUSTRIA
		owner F RUM: RUSSIA
		owner F BLA: TURKEY
		owner A BUL: TURKEY
	`},
	// 6.D.29. MOVE TO IMPOSSIBLE COAST AND SUPPORT
	// Similar to the previous test case, but now the move can be "illegal" because of the wrong coast.
	// Austria: A Budapest Supports F Rumania
	// Russia: F Rumania - Bulgaria(sc)
	// Turkey: F Black Sea - Rumania
	// Turkey: A Bulgaria Supports F Black Sea - Rumania
	// Again the move of the Russian fleet is impossible. However, some people might correct the coast
	// (see issue 4.B.3). If the coast is not corrected, again the question is whether it is "illegal" (see
	// issue 4.E.1). If the move is "illegal" it must be ignored and that makes the hold support of the army in
	// Budapest valid and the fleet in Rumania will not be dislodged.
	// I prefer that unambiguous orders are not changed and that the move is "illegal". That means that the fleet
	// in the Black Sea does not dislodge the supported Russian fleet.
	{id: "6.D.29", title: "MOVE TO IMPOSSIBLE COAST AND SUPPORT", script: `
		units AUSTRIA: A BUD
		units RUSSIA: F RUM
		units TURKEY: F BLA, A BUL
		orders AUSTRIA: A BUD S F RUM
		orders RUSSIA: F RUM - BUL/SC
		orders TURKEY: F BLA - RUM; A BUL S F BLA - RUM
		process
		result M A BUD: ok
		result M F RUM: void
		result M F BLA: bounce
		result M A BUL: ok
		owner A BUD: AUSTRIA
		owner F RUM: RUSSIA
		owner F BLA: TURKEY
		owner A BUL: TURKEY
	`},
	// 6.D.30. MOVE WITHOUT COAST AND SUPPORT
	// Similar to the previous test case, but now the move can be "illegal" because of missing coast.
	// Italy: F Aegean Sea Supports F Constantinople
	// Russia: F Constantinople - Bulgaria
	// Turkey: F Black Sea - Constantinople
	// Turkey: A Bulgaria Supports F Black Sea - Constantinople
	// Again the order to the Russian fleet is with problems, because it does not specify the coast, while both
	// coasts of Bulgaria are possible. If no default coast is taken (see issue 4.B.1), then also here it must be
	// decided whether the order is "illegal" (see issue 4.E.1). If the move is "illegal" it must be ignored and
	// that makes the hold support of the fleet in the Aegean Sea valid and the Russian fleet will not be
	// dislodged. I don't like default coasts and I prefer that the move is "illegal". That means that the fleet
	// in the Black Sea does not dislodge the supported Russian fleet.
	{id: "6.D.30", title: "MOVE WITHOUT COAST AND SUPPORT", script: `
		units ITALY: F AEG
		units RUSSIA: F CON
		units TURKEY: F BLA, A BUL
		orders ITALY: F AEG S F CON
		orders RUSSIA: F CON - BUL
		orders TURKEY: F BLA - CON; A BUL S F BLA - CON
		process
		result M F AEG: ok
		result M F CON: void
		result M F BLA: bounce
		result M A BUL: ok
		owner F AEG: ITALY
		owner F CON: RUSSIA
		owner F BLA: TURKEY
		owner A BUL: TURKEY
	`},
	// 6.D.31. A TRICKY IMPOSSIBLE SUPPORT
	// A support order can be impossible for complex reasons.
	// Austria: A Rumania - Armenia
	// Turkey: F Black Sea Supports A Rumania - Armenia
	// Although the army in Rumania can move to Armenia and the fleet in the Black Sea can also go to Armenia,
	// the support is still not possible. The reason is that the only possible convoy is through the Black Sea and
	// a fleet can not convoy and support at the same time.
	// This is relevant for computer programs that show only the possible orders. In the list of possible orders,
	// the support as given to the fleet in the Black Sea, should not be listed. Furthermore, if the fleet in the
	// Black Sea gets a second order, then this may fail, because of double orders (although it can also be ruled
	// differently, see issue 4.D.3). However, when the support order is considered "illegal" (see issue 4.E.1),
	// then this impossible support must be ignored and the second order must be carried out.
	// I prefer that impossible orders are "illegal" and ignored. If there would be a second order for the fleet
	// in the Black Sea, that order should be carried out.
	{id: "6.D.31", title: "A TRICKY IMPOSSIBLE SUPPORT", script: `
		units AUSTRIA: A RUM
		units TURKEY: F BLA
		orders AUSTRIA: A RUM - ARM
		orders TURKEY: F BLA S A RUM - ARM
		process
		result M A RUM: no_convoy
		result M F BLA: void
		owner A RUM: AUSTRIA
		owner F BLA: TURKEY
	`},
	// 6.D.32. A MISSING FLEET
	// The previous test cases contained an order that was impossible even when some other pieces on the board
	// where changed. In this test case, the order is impossible, but only for that situation.
	// England: F Edinburgh Supports A Liverpool - Yorkshire
	// England: A Liverpool - Yorkshire
	// France: F London Supports A Yorkshire
	// Germany: A Yorkshire - Holland
	// The German order to Yorkshire can not be executed, because there is no fleet in the North Sea. In other
	// situations (where there is a fleet in the North Sea), the exact same order would be possible. It should be
	// determined whether this is "illegal" (see issue 4.E.1) or not. If it is illegal, then the order should be
	// ignored and the support of the French fleet in London succeeds. This means that the army in Yorkshire is
	// not dislodged.
	// I prefer that impossible orders, even if it is only impossible for the current situation, are "illegal" and
	// ignored. The army in Yorkshire is not dislodged.
	{id: "6.D.32", title: "A MISSING FLEET", script: `
		units ENGLAND: F EDI, A LVP
		units FRANCE: F LON
		units GERMANY: A YOR
		orders ENGLAND: F EDI S A LVP - YOR; A LVP - YOR
		orders FRANCE: F LON S A YOR
		orders GERMANY: A YOR - HOL
		process
		result M F EDI: ok
		result M A LVP: bounce
		result M F LON: ok
		result M A YOR: void
		owner F EDI: ENGLAND
		owner A LVP: ENGLAND
		owner F LON: FRANCE
		owner A YOR: GERMANY
	`},
	// 6.D.33. UNWANTED SUPPORT ALLOWED
	// A self stand-off can be broken by an unwanted support.
	// Austria: A Serbia - Budapest
	// Austria: A Vienna - Budapest
	// Russia: A Galicia Supports A Serbia - Budapest
	// Turkey: A Bulgaria - Serbia
	// Due to the Russian support, the army in Serbia advances to Budapest. This enables Turkey to capture
	// Serbia with the army in Bulgaria.
	{id: "6.D.33", title: "UNWANTED SUPPORT ALLOWED", script: `
		units AUSTRIA: A SER, A VIE
		units RUSSIA: A GAL
		units TURKEY: A BUL
		orders AUSTRIA: A SER - BUD; A VIE - BUD
		orders RUSSIA: A GAL S A SER - BUD
		orders TURKEY: A BUL - SER
		process
		result M A SER: ok
		result M A VIE: bounce
		result M A GAL: ok
		result M A BUL: ok
		owner A SER: TURKEY
		owner A VIE: AUSTRIA
		owner A GAL: RUSSIA
		owner A BUL: none
		owner A BUD: AUSTRIA
	`},
	// 6.D.34. SUPPORT TARGETING OWN AREA NOT ALLOWED
	// Support targeting the area where the supporting unit is standing, is illegal.
	// Germany: A Berlin - Prussia
	// Germany: A Silesia Supports A Berlin - Prussia
	// Germany: F Baltic Sea Supports A Berlin - Prussia
	// Italy: A Prussia Supports Livonia - Prussia
	// Russia: A Warsaw Supports A Livonia - Prussia
	// Russia: A Livonia - Prussia
	// Russia and Italy wanted to get rid of the Italian army in Prussia (to build an Italian fleet somewhere
	// else). However, they didn't want a possible German attack on Prussia to succeed. They invented this odd
	// order of Italy. It was intended that the attack of the army in Livonia would have strength three, so it
	// would be capable to prevent the possible German attack to succeed. However, the order of Italy is illegal,
	// because a unit may only support to an area where the unit can go by itself. A unit can't go to the area it
	// is already standing, so the Italian order is illegal and the German move from Berlin succeeds. Even if it
	// would be legal, the German move from Berlin would still succeed, because the support of Prussia is cut by
	// Livonia and Berlin.
	{id: "6.D.34", title: "SUPPORT TARGETING OWN AREA NOT ALLOWED", script: `
		units GERMANY: A BER, A SIL, F BAL
		units ITALY: A PRU
		units RUSSIA: A WAR, A LVN
		orders GERMANY: A BER - PRU; A SIL S A BER - PRU; F BAL S A BER - PRU
		orders ITALY: A PRU S LVN - PRU
		orders RUSSIA: A WAR S A LVN - PRU; A LVN - PRU
		process
		result M A BER: ok
		result M A SIL: ok
		result M F BAL: ok
		result M A PRU: void
		result M A PRU: dislodged
		result M A WAR: ok
		result M A LVN: bounce
		dislodged A PRU by BER
		owner A BER: none
		owner A SIL: GERMANY
		owner F BAL: GERMANY
		owner A PRU: GERMANY
		owner A WAR: RUSSIA
		owner A LVN: RUSSIA
	`},
	// 6.E.1. DISLODGED UNIT HAS NO EFFECT ON ATTACKERS AREA
	// An army can follow.
	// Germany: A Berlin - Prussia
	// Germany: F Kiel - Berlin
	// Germany: A Silesia Supports A Berlin - Prussia
	// Russia: A Prussia - Berlin
	// The army in Kiel will move to Berlin.
	{id: "6.E.1", title: "DISLODGED UNIT HAS NO EFFECT ON ATTACKERS AREA", script: `
		units GERMANY: A BER, F KIE, A SIL
		units RUSSIA: A PRU
		orders GERMANY: A BER - PRU; F KIE - BER; A SIL S A BER - PRU
		orders RUSSIA: A PRU - BER
		process
		result M A BER: ok
		result M F KIE: ok
		result M A SIL: ok
		result M A PRU: dislodged
		result M A PRU: bounce
		dislodged A PRU by BER
		owner F BER: GERMANY
		owner F KIE: none
		owner A SIL: GERMANY
		owner A PRU: GERMANY
	`},
	// 6.E.2. NO SELF DISLODGEMENT IN HEAD TO HEAD BATTLE
	// Self dislodgement is not allowed. This also counts for head to head battles.
	// Germany: A Berlin - Kiel
	// Germany: F Kiel - Berlin
	// Germany: A Munich Supports A Berlin - Kiel
	// No unit will move.
	{id: "6.E.2", title: "NO SELF DISLODGEMENT IN HEAD TO HEAD BATTLE", script: `
		units GERMANY: A BER, F KIE, A MUN
		orders GERMANY: A BER - KIE; F KIE - BER; A MUN S A BER - KIE
		process
		result M A BER: bounce
		result M F KIE: bounce
		result M A MUN: void
		owner A BER: GERMANY
		owner F KIE: GERMANY
		owner A MUN: GERMANY
	`},
	// 6.E.3. NO HELP IN DISLODGING OWN UNIT
	// To help a foreign power to dislodge own unit in head to head battle is not possible.
	// Germany: A Berlin - Kiel
	// Germany: A Munich Supports F Kiel - Berlin
	// England: F Kiel - Berlin
	// No unit will move.
	{id: "6.E.3", title: "NO HELP IN DISLODGING OWN UNIT", script: `
		units GERMANY: A BER, A MUN
		units ENGLAND: F KIE
		orders GERMANY: A BER - KIE; A MUN S F KIE - BER
		orders ENGLAND: F KIE - BER
		process
		result M A BER: bounce
		result M A MUN: void
		result M F KIE: bounce
		owner A BER: GERMANY
		owner A MUN: GERMANY
		owner F KIE: ENGLAND
	`},
	// 6.E.4. NON-DISLODGED LOSER HAS STILL EFFECT
	// If in an unbalanced head to head battle the loser is not dislodged, it has still effect on the area of
	// the attacker.
	// Germany: F Holland - North Sea
	// Germany: F Helgoland Bight Supports F Holland - North Sea
	// Germany: F Skagerrak Supports F Holland - North Sea
	// France: F North Sea - Holland
	// France: F Belgium Supports F North Sea - Holland
	// England: F Edinburgh Supports F Norwegian Sea - North Sea
	// England: F Yorkshire Supports F Norwegian Sea - North Sea
	// England: F Norwegian Sea - North Sea
	// Austria: A Kiel Supports A Ruhr - Holland
	// Austria: A Ruhr - Holland
	// The French fleet in the North Sea is not dislodged due to the beleaguered garrison. Therefore,
	// the Austrian army in Ruhr will not move to Holland.
	{id: "6.E.4", title: "NON-DISLODGED LOSER HAS STILL EFFECT", script: `
		units GERMANY: F HOL, F HEL, F SKA
		units FRANCE: F NTH, F BEL
		units ENGLAND: F EDI, F YOR, F NWG
		units AUSTRIA: A KIE, A RUH
		orders GERMANY: F HOL - NTH; F HEL S F HOL - NTH; F SKA S F HOL - NTH
		orders FRANCE: F NTH - HOL; F BEL S F NTH - HOL
		orders ENGLAND: F EDI S F NWG - NTH; F YOR S F NWG - NTH; F NWG - NTH
		orders AUSTRIA: A KIE S A RUH - HOL; A RUH - HOL
		process
		result M F HOL: bounce
		result M F HEL: ok
		result M F SKA: ok
		result M F NTH: bounce
		result M F BEL: ok
		result M F EDI: ok
		result M F YOR: ok
		result M F NWG: bounce
		result M A KIE: ok
		result M A RUH: bounce
		owner F HOL: GERMANY
		owner F HEL: GERMANY
		owner F SKA: GERMANY
		owner F NTH: FRANCE
		owner F BEL: FRANCE
		owner F EDI: ENGLAND
		owner F YOR: ENGLAND
		owner F NWG: ENGLAND
		owner A KIE: AUSTRIA
		owner A RUH: AUSTRIA
	`},
	// 6.E.5. LOSER DISLODGED BY ANOTHER ARMY HAS STILL EFFECT
	// If in an unbalanced head to head battle the loser is dislodged by a unit not part of the head to head
	// battle, the loser has still effect on the place of the winner of the head to head battle.
	// Germany: F Holland - North Sea
	// Germany: F Helgoland Bight Supports F Holland - North Sea
	// Germany: F Skagerrak Supports F Holland - North Sea
	// France: F North Sea - Holland
	// France: F Belgium Supports F North Sea - Holland
	// England: F Edinburgh Supports F Norwegian Sea - North Sea
	// England: F Yorkshire Supports F Norwegian Sea - North Sea
	// England: F Norwegian Sea - North Sea
	// England: F London Supports F Norwegian Sea - North Sea
	// Austria: A Kiel Supports A Ruhr - Holland
	// Austria: A Ruhr - Holland
	// The French fleet in the North Sea is dislodged but not by the German fleet in Holland. Therefore,
	// the French fleet can still prevent that the Austrian army in Ruhr will move to Holland. So, the Austrian
	// move in Ruhr fails and the German fleet in Holland is not dislodged.
	{id: "6.E.5", title: "LOSER DISLODGED BY ANOTHER ARMY HAS STILL EFFECT", script: `
		units GERMANY: F HOL, F HEL, F SKA
		units FRANCE: F NTH, F BEL
		units ENGLAND: F EDI, F YOR, F NWG, F LON
		units AUSTRIA: A KIE, A RUH
		orders GERMANY: F HOL - NTH; F HEL S F HOL - NTH; F SKA S F HOL - NTH
		orders FRANCE: F NTH - HOL; F BEL S F NTH - HOL
		orders ENGLAND: F EDI S F NWG - NTH; F YOR S F NWG - NTH; F NWG - NTH; F LON S F NWG - NTH
		orders AUSTRIA: A KIE S A RUH - HOL; A RUH - HOL
		process
		result M F HOL: bounce
		result M F HEL: ok
		result M F SKA: ok
		result M F NTH: dislodged
		result M F NTH: bounce
		result M F BEL: ok
		result M F EDI: ok
		result M F YOR: ok
		result M F NWG: ok
		result M F LON: ok
		result M A KIE: ok
		result M A RUH: bounce
		dislodged F NTH by NWG
		owner F HOL: GERMANY
		owner F HEL: GERMANY
		owner F SKA: GERMANY
		owner F NTH: ENGLAND
		owner F BEL: FRANCE
		owner F EDI: ENGLAND
		owner F YOR: ENGLAND
		owner F NWG: none
		owner F LON: ENGLAND
		owner A KIE: AUSTRIA
		owner A RUH: AUSTRIA
	`},
	// 6.E.6. NOT DISLODGE BECAUSE OF OWN SUPPORT HAS STILL EFFECT
	// If in an unbalanced head to head battle the loser is not dislodged because the winner had help of a unit
	// of the loser, the loser has still effect on the area of the winner.
	// Germany: F Holland - North Sea
	// Germany: F Helgoland Bight Supports F Holland - North Sea
	// France: F North Sea - Holland
	// France: F Belgium Supports F North Sea - Holland
	// France: F English Channel Supports F Holland - North Sea
	// Austria: A Kiel Supports A Ruhr - Holland
	// Austria: A Ruhr - Holland
	// Although the German force from Holland to North Sea is one larger than the French force from North Sea
	// to Holland,
	// the French fleet in the North Sea is not dislodged, because one of the supports on the German movement is
	// French.
	// Therefore, the Austrian army in Ruhr will not move to Holland.
	{id: "6.E.6", title: "NOT DISLODGE BECAUSE OF OWN SUPPORT HAS STILL EFFECT", script: `
		units GERMANY: F HOL, F HEL
		units FRANCE: F NTH, F BEL, F ENG
		units AUSTRIA: A KIE, A RUH
		orders GERMANY: F HOL - NTH; F HEL S F HOL - NTH
		orders FRANCE: F NTH - HOL; F BEL S F NTH - HOL; F ENG S F HOL - NTH
		orders AUSTRIA: A KIE S A RUH - HOL; A RUH - HOL
		process
		result M F HOL: bounce
		result M F HEL: ok
		result M F NTH: bounce
		result M F BEL: ok
		result M F ENG: void
		result M A KIE: ok
		result M A RUH: bounce
		owner F HOL: GERMANY
		owner F HEL: GERMANY
		owner F NTH: FRANCE
		owner F BEL: FRANCE
		owner F ENG: FRANCE
		owner A KIE: AUSTRIA
		owner A RUH: AUSTRIA
	`},
	// 6.E.7. NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON
	// An attempt to self dislodgement can be combined with a beleaguered garrison. Such self dislodgment is still
	// not possible.
	// England: F North Sea Hold
	// England: F Yorkshire Supports F Norway - North Sea
	// Germany: F Holland Supports F Helgoland Bight - North Sea
	// Germany: F Helgoland Bight - North Sea
	// Russia: F Skagerrak Supports F Norway - North Sea
	// Russia: F Norway - North Sea
	// Although the Russians beat the German attack (with the support of Yorkshire) and the two Russian fleets
	// are enough to dislodge the fleet in the North Sea, the fleet in the North Sea is not dislodged, since it
	// would not be dislodged if the English fleet in Yorkshire would not give support. According to the DPTG the
	// fleet in the North Sea would be dislodged. The DPTG is incorrect in this case.
	{id: "6.E.7", title: "NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON", script: `
		units ENGLAND: F NTH, F YOR
		units GERMANY: F HOL, F HEL
		units RUSSIA: F SKA, F NWY
		orders ENGLAND: F NTH H; F YOR S F NWY - NTH
		orders GERMANY: F HOL S F HEL - NTH; F HEL - NTH
		orders RUSSIA: F SKA S F NWY - NTH; F NWY - NTH
		process
		result M F NTH: ok
		# The reference library reports this support void; it counts for the
		# bounce of the fleet from Helgoland Bight, so it is given here.
		result M F YOR: ok
		result M F HOL: ok
		result M F HEL: bounce
		result M F SKA: ok
		result M F NWY: bounce
		owner F NTH: ENGLAND
		owner F YOR: ENGLAND
		owner F HOL: GERMANY
		owner F HEL: GERMANY
		owner F SKA: RUSSIA
		owner F NWY: RUSSIA
	`},
	// 6.E.8. NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON AND HEAD TO HEAD BATTLE
	// Similar to the previous test case, but now the beleaguered fleet is also engaged in a head to head battle.
	// England: F North Sea - Norway
	// England: F Yorkshire Supports F Norway - North Sea
	// Germany: F Holland Supports F Helgoland Bight - North Sea
	// Germany: F Helgoland Bight - North Sea
	// Russia: F Skagerrak Supports F Norway - North Sea
	// Russia: F Norway - North Sea
	// Again, none of the fleets move.
	{id: "6.E.8", title: "NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON AND HEAD TO HEAD BATTLE", script: `
		units ENGLAND: F NTH, F YOR
		units GERMANY: F HOL, F HEL
		units RUSSIA: F SKA, F NWY
		orders ENGLAND: F NTH - NWY; F YOR S F NWY - NTH
		orders GERMANY: F HOL S F HEL - NTH; F HEL - NTH
		orders RUSSIA: F SKA S F NWY - NTH; F NWY - NTH
		process
		result M F NTH: bounce
		# The reference library reports this support void; it counts for the
		# bounce of the fleet from Helgoland Bight, so it is given here.
		result M F YOR: ok
		result M F HOL: ok
		result M F HEL: bounce
		result M F SKA: ok
		result M F NWY: bounce
		owner F NTH: ENGLAND
		owner F YOR: ENGLAND
		owner F HOL: GERMANY
		owner F HEL: GERMANY
		owner F SKA: RUSSIA
		owner F NWY: RUSSIA
	`},
	// 6.E.9. ALMOST SELF DISLODGEMENT WITH BELEAGUERED GARRISON
	// Similar to the previous test case, but now the beleaguered fleet is moving away.
	// England: F North Sea - Norwegian Sea
	// England: F Yorkshire Supports F Norway - North Sea
	// Germany: F Holland Supports F Helgoland Bight - North Sea
	// Germany: F Helgoland Bight - North Sea
	// Russia: F Skagerrak Supports F Norway - North Sea
	// Russia: F Norway - North Sea
	// Both the fleet in the North Sea and the fleet in Norway move.
	{id: "6.E.9", title: "ALMOST SELF DISLODGEMENT WITH BELEAGUERED GARRISON", script: `
		units ENGLAND: F NTH, F YOR
		units GERMANY: F HOL, F HEL
		units RUSSIA: F SKA, F NWY
		orders ENGLAND: F NTH - NWG; F YOR S F NWY - NTH
		orders GERMANY: F HOL S F HEL - NTH; F HEL - NTH
		orders RUSSIA: F SKA S F NWY - NTH; F NWY - NTH
		process
		result M F NTH: ok
		result M F YOR: ok
		result M F HOL: ok
		result M F HEL: bounce
		result M F SKA: ok
		result M F NWY: ok
		owner F NTH: RUSSIA
		owner F YOR: ENGLAND
		owner F HOL: GERMANY
		owner F HEL: GERMANY
		owner F SKA: RUSSIA
		owner F NWY: none
		owner F NWG: ENGLAND
	`},
	// 6.E.10. ALMOST CIRCULAR MOVEMENT WITH NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON
	// Similar to the previous test case, but now the beleaguered fleet is in circular movement with the weaker
	// attacker. So, the circular movement fails.
	// England: F North Sea - Denmark
	// England: F Yorkshire Supports F Norway - North Sea
	// Germany: F Holland Supports F Helgoland Bight - North Sea
	// Germany: F Helgoland Bight - North Sea
	// Germany: F Denmark - Helgoland Bight
	// Russia: F Skagerrak Supports F Norway - North Sea
	// Russia: F Norway - North Sea
	// There is no movement of fleets.
	{id: "6.E.10", title: "ALMOST CIRCULAR MOVEMENT WITH NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON", script: `
		units ENGLAND: F NTH, F YOR
		units GERMANY: F HOL, F HEL, F DEN
		units RUSSIA: F SKA, F NWY
		orders ENGLAND: F NTH - DEN; F YOR S F NWY - NTH
		orders GERMANY: F HOL S F HEL - NTH; F HEL - NTH; F DEN - HEL
		orders RUSSIA: F SKA S F NWY - NTH; F NWY - NTH
		process
		result M F NTH: bounce
		# The reference library reports this support void; it counts for the
		# bounce of the fleet from Helgoland Bight, so it is given here.
		result M F YOR: ok
		result M F HOL: ok
		result M F HEL: bounce
		result M F DEN: bounce
		result M F SKA: ok
		result M F NWY: bounce
		owner F NTH: ENGLAND
		owner F YOR: ENGLAND
		owner F HOL: GERMANY
		owner F HEL: GERMANY
		owner F DEN: GERMANY
		owner F SKA: RUSSIA
		owner F NWY: RUSSIA
	`},
	// 6.E.11. NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON, UNIT SWAP WITH ADJACENT CONVOYING AND
	// TWO COASTS
	// Similar to the previous test case, but now the beleaguered fleet is in a unit swap with the stronger
	// attacker. So, the unit swap succeeds. To make the situation more complex, the swap is on an area with
	// two coasts.
	// France: A Spain - Portugal via Convoy
	// France: F Mid-Atlantic Ocean Convoys A Spain - Portugal
	// France: F Gulf of Lyon Supports F Portugal - Spain(nc)
	// Germany: A Marseilles Supports A Gascony - Spain
	// Germany: A Gascony - Spain
	// Italy: F Portugal - Spain(nc)
	// Italy: F Western Mediterranean Supports F Portugal - Spain(nc)
	// The unit swap succeeds. Note that due to the success of the swap, there is no beleaguered garrison anymore.
	{id: "6.E.11", title: "NO SELF DISLODGEMENT WITH BELEAGUERED GARRISON, UNIT SWAP WITH ADJACENT CONVOYING AND", script: `
		units FRANCE: A SPA, F MAO, F LYO
		units GERMANY: A MAR, A GAS
		units ITALY: F POR, F WES
		orders FRANCE: A SPA - POR VIA; F MAO C A SPA - POR; F LYO S F POR - SPA/NC
		orders GERMANY: A MAR S A GAS - SPA; A GAS - SPA
		orders ITALY: F POR - SPA/NC; F WES S F POR - SPA/NC
		process
		result M A SPA: ok
		result M F MAO: ok
		result M F LYO: ok
		result M A MAR: ok
		result M A GAS: bounce
		result M F POR: ok
		result M F WES: ok
		owner F SPA: ITALY
		owner F SPA/NC: ITALY
		owner F SPA/SC: none
		owner F MAO: FRANCE
		owner F LYO: FRANCE
		owner A MAR: GERMANY
		owner A GAS: GERMANY
		owner A POR: FRANCE
		owner F WES: ITALY
	`},
	// 6.E.12. SUPPORT ON ATTACK ON OWN UNIT CAN BE USED FOR OTHER MEANS
	// A support on an attack on your own unit has still effect. It can prevent that another army will dislodge
	// the unit.
	// Austria: A Budapest - Rumania
	// Austria: A Serbia Supports A Vienna - Budapest
	// Italy: A Vienna - Budapest
	// Russia: A Galicia - Budapest
	// Russia: A Rumania Supports A Galicia - Budapest
	// The support of Serbia on the Italian army prevents that the Russian army in Galicia will advance.
	// No army will move.
	{id: "6.E.12", title: "SUPPORT ON ATTACK ON OWN UNIT CAN BE USED FOR OTHER MEANS", script: `
		units AUSTRIA: A BUD, A SER
		units ITALY: A VIE
		units RUSSIA: A GAL, A RUM
		orders AUSTRIA: A BUD - RUM; A SER S A VIE - BUD
		orders ITALY: A VIE - BUD
		orders RUSSIA: A GAL - BUD; A RUM S A GAL - BUD
		process
		result M A BUD: bounce
		result M A SER: ok
		result M A VIE: bounce
		result M A GAL: bounce
		result M A RUM: ok
		owner A BUD: AUSTRIA
		owner A SER: AUSTRIA
		owner A VIE: ITALY
		owner A GAL: RUSSIA
		owner A RUM: RUSSIA
	`},
	// 6.E.13. THREE WAY BELEAGUERED GARRISON
	// In a beleaguered garrison from three sides, the adjudicator may not let two attacks fail and then let the
	// third succeed.
	// England: F Edinburgh Supports F Yorkshire - North Sea
	// England: F Yorkshire - North Sea
	// France: F Belgium - North Sea
	// France: F English Channel Supports F Belgium - North Sea
	// Germany: F North Sea Hold
	// Russia: F Norwegian Sea - North Sea
	// Russia: F Norway Supports F Norwegian Sea - North Sea
	// None of the fleets move. The German fleet in the North Sea is not dislodged.
	{id: "6.E.13", title: "THREE WAY BELEAGUERED GARRISON", script: `
		units ENGLAND: F EDI, F YOR
		units FRANCE: F BEL, F ENG
		units GERMANY: F NTH
		units RUSSIA: F NWG, F NWY
		orders ENGLAND: F EDI S F YOR - NTH; F YOR - NTH
		orders FRANCE: F BEL - NTH; F ENG S F BEL - NTH
		orders GERMANY: F NTH H
		orders RUSSIA: F NWG - NTH; F NWY S F NWG - NTH
		process
		result M F EDI: ok
		result M F YOR: bounce
		result M F BEL: bounce
		result M F ENG: ok
		result M F NTH: ok
		result M F NWG: bounce
		result M F NWY: ok
		owner F EDI: ENGLAND
		owner F YOR: ENGLAND
		owner F BEL: FRANCE
		owner F ENG: FRANCE
		owner F NTH: GERMANY
		owner F NWG: RUSSIA
		owner F NWY: RUSSIA
	`},
	// 6.E.14. ILLEGAL HEAD TO HEAD BATTLE CAN STILL DEFEND
	// If in a head to head battle, one of the units makes an illegal move, than that unit has still the
	// possibility to defend against attacks with strength of one.
	// England: A Liverpool - Edinburgh
	// Russia: F Edinburgh - Liverpool
	// The move of the Russian fleet is illegal, but can still prevent the English army to enter Edinburgh. So,
	// none of the units move.
	{id: "6.E.14", title: "ILLEGAL HEAD TO HEAD BATTLE CAN STILL DEFEND", script: `
		units ENGLAND: A LVP
		units RUSSIA: F EDI
		orders ENGLAND: A LVP - EDI
		orders RUSSIA: F EDI - LVP
		process
		result M A LVP: bounce
		result M F EDI: void
		owner A LVP: ENGLAND
		owner F EDI: RUSSIA
	`},
	// 6.E.15. THE FRIENDLY HEAD TO HEAD BATTLE
	// In this case both units in the head to head battle prevent that the other one is dislodged.
	// England: F Holland Supports A Ruhr - Kiel
	// England: A Ruhr - Kiel
	// France: A Kiel - Berlin
	// France: A Munich Supports A Kiel - Berlin
	// France: A Silesia Supports A Kiel - Berlin
	// Germany: A Berlin - Kiel
	// Germany: F Denmark Supports A Berlin - Kiel
	// Germany: F Helgoland Bight Supports A Berlin - Kiel
	// Russia: F Baltic Sea Supports A Prussia - Berlin
	// Russia: A Prussia - Berlin
	// None of the moves succeeds. This case is especially difficult for sequence based adjudicators. They will
	// start adjudicating the head to head battle and continue to adjudicate the attack on one of the units part
	// of the head to head battle. In this self.process, one of the sides of the head to head battle might be
	// cancelled out. This happens in the DPTG. If this is adjudicated according to the DPTG, the unit in Ruhr or
	// in Prussia will advance (depending on the order the units are adjudicated). This is clearly a bug in the
	// DPTG.
	{id: "6.E.15", title: "THE FRIENDLY HEAD TO HEAD BATTLE", script: `
		units ENGLAND: F HOL, A RUH
		units FRANCE: A KIE, A MUN, A SIL
		units GERMANY: A BER, F DEN, F HEL
		units RUSSIA: F BAL, A PRU
		orders ENGLAND: F HOL S A RUH - KIE; A RUH - KIE
		orders FRANCE: A KIE - BER; A MUN S A KIE - BER; A SIL S A KIE - BER
		orders GERMANY: A BER - KIE; F DEN S A BER - KIE; F HEL S A BER - KIE
		orders RUSSIA: F BAL S A PRU - BER; A PRU - BER
		process
		result M F HOL: ok
		result M A RUH: bounce
		result M A KIE: bounce
		result M A MUN: ok
		result M A SIL: ok
		result M A BER: bounce
		result M F DEN: ok
		result M F HEL: ok
		result M F BAL: ok
		result M A PRU: bounce
		owner F HOL: any
		owner A RUH: any
		owner A KIE: any
		owner A MUN: any
		owner A SIL: any
		owner A BER: any
		owner F DEN: any
		owner F HEL: any
		owner F BAL: any
		owner A PRU: any
	`},
	// 6.F.1. NO CONVOY IN COASTAL AREAS
	// A fleet in a coastal area may not convoy.
	// Turkey: A Greece - Sevastopol
	// Turkey: F Aegean Sea Convoys A Greece - Sevastopol
	// Turkey: F Constantinople Convoys A Greece - Sevastopol
	// Turkey: F Black Sea Convoys A Greece - Sevastopol
	// The convoy in Constantinople is not possible. So, the army in Greece will not move to Sevastopol.
	{id: "6.F.1", title: "NO CONVOY IN COASTAL AREAS", script: `
		units TURKEY: A GRE, F AEG, F CON, F BLA
		orders TURKEY: A GRE - SEV; F AEG C A GRE - SEV; F CON C A GRE - SEV; F BLA C A GRE - SEV
		process
		result M A GRE: void
		result M F AEG: void
		result M F CON: void
		result M F BLA: void
		owner A GRE: TURKEY
		owner F AEG: TURKEY
		owner F CON: TURKEY
		owner F BLA: TURKEY
		owner A SEV: none
	`},
	// 6.F.2. AN ARMY BEING CONVOYED CAN BOUNCE AS NORMAL
	// Armies being convoyed bounce on other units just as armies that are not being convoyed.
	// England: F English Channel Convoys A London - Brest
	// England: A London - Brest
	// France: A Paris - Brest
	// The English army in London bounces on the French army in Paris. Both units do not move.
	{id: "6.F.2", title: "AN ARMY BEING CONVOYED CAN BOUNCE AS NORMAL", script: `
		units ENGLAND: F ENG, A LON
		units FRANCE: A PAR
		orders ENGLAND: F ENG C A LON - BRE; A LON - BRE
		orders FRANCE: A PAR - BRE
		process
		result M F ENG: ok
		result M A LON: bounce
		result M A PAR: bounce
		owner F ENG: ENGLAND
		owner A LON: ENGLAND
		owner A PAR: FRANCE
	`},
	// 6.F.3. AN ARMY BEING CONVOYED CAN RECEIVE SUPPORT
	// Armies being convoyed can receive support as in any other move.
	// England: F English Channel Convoys A London - Brest
	// England: A London - Brest
	// England: F Mid-Atlantic Ocean Supports A London - Brest
	// France: A Paris - Brest
	// The army in London receives support and beats the army in Paris. This means that the army London will end
	// in Brest and the French army in Paris stays in Paris.
	{id: "6.F.3", title: "AN ARMY BEING CONVOYED CAN RECEIVE SUPPORT", script: `
		units ENGLAND: F ENG, A LON, F MAO
		units FRANCE: A PAR
		orders ENGLAND: F ENG C A LON - BRE; A LON - BRE; F MAO S A LON - BRE
		orders FRANCE: A PAR - BRE
		process
		result M F ENG: ok
		result M A LON: ok
		result M F MAO: ok
		result M A PAR: bounce
		owner F ENG: ENGLAND
		owner A BRE: ENGLAND
		owner F MAO: ENGLAND
		owner A LON: none
		owner A PAR: FRANCE
	`},
	// 6.F.4. AN ATTACKED CONVOY IS NOT DISRUPTED
	// A convoy can only be disrupted by dislodging the fleets. Attacking is not sufficient.
	// England: F North Sea Convoys A London - Holland
	// England: A London - Holland
	// Germany: F Skagerrak - North Sea
	// The army in London will successfully convoy and end in Holland.
	{id: "6.F.4", title: "AN ATTACKED CONVOY IS NOT DISRUPTED", script: `
		units ENGLAND: F NTH, A LON
		units GERMANY: F SKA
		orders ENGLAND: F NTH C A LON - HOL; A LON - HOL
		orders GERMANY: F SKA - NTH
		process
		result M F NTH: ok
		result M A LON: ok
		result M F SKA: bounce
		owner F NTH: ENGLAND
		owner A LON: none
		owner F SKA: GERMANY
		owner A HOL: ENGLAND
	`},
	// 6.F.5. A BELEAGUERED CONVOY IS NOT DISRUPTED
	// Even when a convoy is in a beleaguered garrison it is not disrupted.
	// England: F North Sea Convoys A London - Holland
	// England: A London - Holland
	// France: F English Channel - North Sea
	// France: F Belgium Supports F English Channel - North Sea
	// Germany: F Skagerrak - North Sea
	// Germany: F Denmark Supports F Skagerrak - North Sea
	// The army in London will successfully convoy and end in Holland.
	{id: "6.F.5", title: "A BELEAGUERED CONVOY IS NOT DISRUPTED", script: `
		units ENGLAND: F NTH, A LON
		units FRANCE: F ENG, F BEL
		units GERMANY: F SKA, F DEN
		orders ENGLAND: F NTH C A LON - HOL; A LON - HOL
		orders FRANCE: F ENG - NTH; F BEL S F ENG - NTH
		orders GERMANY: F SKA - NTH; F DEN S F SKA - NTH
		process
		result M F NTH: ok
		result M A LON: ok
		result M F ENG: bounce
		result M F BEL: ok
		result M F SKA: bounce
		result M F DEN: ok
		owner F NTH: ENGLAND
		owner A LON: none
		owner F ENG: FRANCE
		owner F BEL: FRANCE
		owner F SKA: GERMANY
		owner F DEN: GERMANY
		owner A HOL: ENGLAND
	`},
	// 6.F.6. DISLODGED CONVOY DOES NOT CUT SUPPORT
	// When a fleet of a convoy is dislodged, the convoy is completely cancelled. So, no support is cut.
	// England: F North Sea Convoys A London - Holland
	// England: A London - Holland
	// Germany: A Holland Supports A Belgium
	// Germany: A Belgium Supports A Holland
	// Germany: F Helgoland Bight Supports F Skagerrak - North Sea
	// Germany: F Skagerrak - North Sea
	// France: A Picardy - Belgium
	// France: A Burgundy Supports A Picardy - Belgium
	// The hold order of Holland on Belgium will sustain and Belgium will not be dislodged by the French in
	// Picardy.
	{id: "6.F.6", title: "DISLODGED CONVOY DOES NOT CUT SUPPORT", script: `
		units ENGLAND: F NTH, A LON
		units GERMANY: A HOL, A BEL, F HEL, F SKA
		units FRANCE: A PIC, A BUR
		orders ENGLAND: F NTH C A LON - HOL; A LON - HOL
		orders GERMANY: A HOL S A BEL; A BEL S A HOL; F HEL S F SKA - NTH; F SKA - NTH
		orders FRANCE: A PIC - BEL; A BUR S A PIC - BEL
		process
		result M F NTH: dislodged
		result M A LON: no_convoy
		result M A HOL: ok
		result M A BEL: cut
		result M F HEL: ok
		result M F SKA: ok
		result M A PIC: bounce
		result M A BUR: ok
		dislodged F NTH by SKA
		owner F NTH: GERMANY
		owner A LON: ENGLAND
		owner A HOL: GERMANY
		owner A BEL: GERMANY
		owner F HEL: GERMANY
		owner F SKA: none
		owner A PIC: FRANCE
		owner A BUR: FRANCE
	`},
	// 6.F.7. DISLODGED CONVOY DOES NOT CAUSE CONTESTED AREA
	// When a fleet of a convoy is dislodged, the landing area is not contested, so other units can retreat to
	// that area.
	// England: F North Sea Convoys A London - Holland
	// England: A London - Holland
	// Germany: F Helgoland Bight Supports F Skagerrak - North Sea
	// Germany: F Skagerrak - North Sea
	// The dislodged English fleet can retreat to Holland.
	{id: "6.F.7", title: "DISLODGED CONVOY DOES NOT CAUSE CONTESTED AREA", script: `
		units ENGLAND: F NTH, A LON
		units GERMANY: F HEL, F SKA
		orders ENGLAND: F NTH C A LON - HOL; A LON - HOL
		orders GERMANY: F HEL S F SKA - NTH; F SKA - NTH
		process
		result M F NTH: dislodged
		result M A LON: no_convoy
		result M F HEL: ok
		result M F SKA: ok
		dislodged F NTH by SKA
		owner F NTH: GERMANY
		owner A LON: ENGLAND
		owner F HEL: GERMANY
		owner F SKA: none
		owner A HOL: none
		orders ENGLAND: F NTH R HOL
		process
		result R F NTH: ok
		owner F NTH: GERMANY
		owner A LON: ENGLAND
		owner F HEL: GERMANY
		owner F SKA: none
		owner F HOL: ENGLAND
	`},
	// 6.F.8. DISLODGED CONVOY DOES NOT CAUSE A BOUNCE
	// When a fleet of a convoy is dislodged, then there will be no bounce in the landing area.
	// England: F North Sea Convoys A London - Holland
	// England: A London - Holland
	// Germany: F Helgoland Bight Supports F Skagerrak - North Sea
	// Germany: F Skagerrak - North Sea
	// Germany: A Belgium - Holland
	// The army in Belgium will not bounce and move to Holland.
	{id: "6.F.8", title: "DISLODGED CONVOY DOES NOT CAUSE A BOUNCE", script: `
		units ENGLAND: F NTH, A LON
		units GERMANY: F HEL, F SKA, A BEL
		orders ENGLAND: F NTH C A LON - HOL; A LON - HOL
		orders GERMANY: F HEL S F SKA - NTH; F SKA - NTH; A BEL - HOL
		process
		result M F NTH: dislodged
		result M A LON: no_convoy
		result M F HEL: ok
		result M F SKA: ok
		result M A BEL: ok
		dislodged F NTH by SKA
		owner F NTH: GERMANY
		owner A LON: ENGLAND
		owner F HEL: GERMANY
		owner F SKA: none
		owner A BEL: none
		owner A HOL: GERMANY
	`},
	// 6.F.9. DISLODGE OF MULTI-ROUTE CONVOY
	// When a fleet of a convoy with multiple routes is dislodged, the result depends on the rulebook that is used.
	// England: F English Channel Convoys A London - Belgium
	// England: F North Sea Convoys A London - Belgium
	// England: A London - Belgium
	// France: F Brest Supports F Mid-Atlantic Ocean - English Channel
	// France: F Mid-Atlantic Ocean - English Channel
	// The French fleet in Mid Atlantic Ocean will dislodge the convoying fleet in the English Channel. If the
	// 1971 rules are used (see issue 4.A.1), this will disrupt the convoy and the army will stay in London. When
	// the 1982 or 2000 rulebook is used (which I prefer) the army can still go via the North Sea and the convoy
	// succeeds and the London army will end in Belgium.
	{id: "6.F.9", title: "DISLODGE OF MULTI-ROUTE CONVOY", script: `
		units ENGLAND: F ENG, F NTH, A LON
		units FRANCE: F BRE, F MAO
		orders ENGLAND: F ENG C A LON - BEL; F NTH C A LON - BEL; A LON - BEL
		orders FRANCE: F BRE S F MAO - ENG; F MAO - ENG
		process
		result M F ENG: dislodged
		result M F NTH: ok
		result M A LON: ok
		result M F BRE: ok
		result M F MAO: ok
		dislodged F ENG by MAO
		owner F ENG: FRANCE
		owner F NTH: ENGLAND
		owner A LON: none
		owner F BRE: FRANCE
		owner F MAO: none
		owner A BEL: ENGLAND
	`},
	// 6.F.10. DISLODGE OF MULTI-ROUTE CONVOY WITH FOREIGN FLEET
	// When the 1971 rulebook is used "unwanted" multi-route convoys are possible.
	// England: F North Sea Convoys A London - Belgium
	// England: A London - Belgium
	// Germany: F English Channel Convoys A London - Belgium
	// France: F Brest Supports F Mid-Atlantic Ocean - English Channel
	// France: F Mid-Atlantic Ocean - English Channel
	// If the 1982 or 2000 rulebook is used (which I prefer), it makes no difference that the convoying fleet in
	// the English Channel is German. It will take the convoy via the North Sea anyway and the army in London will
	// end in Belgium. However, when the 1971 rules are used, the German convoy is "unwanted". According to the
	// DPTG the German fleet should be ignored in the English convoy, since there is a convoy path with only
	// English fleets. That means that the convoy is not disrupted and the English army in London will end in
	// Belgium. See also issue 4.A.1.
	{id: "6.F.10", title: "DISLODGE OF MULTI-ROUTE CONVOY WITH FOREIGN FLEET", script: `
		units ENGLAND: F NTH, A LON
		units GERMANY: F ENG
		units FRANCE: F BRE, F MAO
		orders ENGLAND: F NTH C A LON - BEL; A LON - BEL
		orders GERMANY: F ENG C A LON - BEL
		orders FRANCE: F BRE S F MAO - ENG; F MAO - ENG
		process
		result M F NTH: ok
		result M A LON: ok
		result M F ENG: dislodged
		result M F BRE: ok
		result M F MAO: ok
		dislodged F ENG by MAO
		owner F NTH: ENGLAND
		owner A LON: none
		owner F ENG: FRANCE
		owner F BRE: FRANCE
		owner F MAO: none
		owner A BEL: ENGLAND
	`},
	// 6.F.11. DISLODGE OF MULTI-ROUTE CONVOY WITH ONLY FOREIGN FLEETS
	// When the 1971 rulebook is used, "unwanted" convoys can not be ignored in all cases.
	// England: A London - Belgium
	// Germany: F English Channel Convoys A London - Belgium
	// Russia: F North Sea Convoys A London - Belgium
	// France: F Brest Supports F Mid-Atlantic Ocean - English Channel
	// France: F Mid-Atlantic Ocean - English Channel
	// If the 1982 or 2000 rulebook is used (which I prefer), it makes no difference that the convoying fleets
	// are not English. It will take the convoy via the North Sea anyway and the army in London will end in
	// Belgium. However, when the 1971 rules are used, the situation is different. Since both the fleet in the
	// English Channel as the fleet in North Sea are not English, it can not be concluded that the German fleet
	// is "unwanted". Therefore, one of the routes of the convoy is disrupted and that means that the complete
	// convoy is disrupted. The army in London will stay in London. See also issue 4.A.1.
	{id: "6.F.11", title: "DISLODGE OF MULTI-ROUTE CONVOY WITH ONLY FOREIGN FLEETS", script: `
		units ENGLAND: A LON
		units GERMANY: F ENG
		units RUSSIA: F NTH
		units FRANCE: F BRE, F MAO
		orders ENGLAND: A LON - BEL
		orders GERMANY: F ENG C A LON - BEL
		orders RUSSIA: F NTH C A LON - BEL
		orders FRANCE: F BRE S F MAO - ENG; F MAO - ENG
		process
		result M A LON: ok
		result M F ENG: dislodged
		result M F NTH: ok
		result M F BRE: ok
		result M F MAO: ok
		dislodged F ENG by MAO
		owner A LON: none
		owner F ENG: FRANCE
		owner F NTH: RUSSIA
		owner F BRE: FRANCE
		owner F MAO: none
		owner A BEL: ENGLAND
	`},
	// 6.F.12. DISLODGED CONVOYING FLEET NOT ON ROUTE
	// When the rule is used that convoys are disrupted when one of the routes is disrupted (see issue 4.A.1),
	// the convoy is not necessarily disrupted when one of the fleets ordered to convoy is dislodged.
	// England: F English Channel Convoys A London - Belgium
	// England: A London - Belgium
	// England: F Irish Sea Convoys A London - Belgium
	// France: F North Atlantic Ocean Supports F Mid-Atlantic Ocean - Irish Sea
	// France: F Mid-Atlantic Ocean - Irish Sea
	// Even when convoys are disrupted when one of the routes is disrupted (see issue 4.A.1), the convoy from
	// London to Belgium will still succeed, since the dislodged fleet in the Irish Sea is not part of any route,
	// although it can be reached from the starting point London.
	{id: "6.F.12", title: "DISLODGED CONVOYING FLEET NOT ON ROUTE", script: `
		units ENGLAND: F ENG, A LON, F IRI
		units FRANCE: F NAO, F MAO
		orders ENGLAND: F ENG C A LON - BEL; A LON - BEL; F IRI C A LON - BEL
		orders FRANCE: F NAO S F MAO - IRI; F MAO - IRI
		process
		result M F ENG: ok
		result M A LON: ok
		result M F IRI: dislodged
		result M F NAO: ok
		result M F MAO: ok
		dislodged F IRI by MAO
		owner F ENG: ENGLAND
		owner A LON: none
		owner F IRI: FRANCE
		owner F NAO: FRANCE
		owner F MAO: none
		owner A BEL: ENGLAND
	`},
	// 6.F.13. THE UNWANTED ALTERNATIVE
	// This situation is not difficult to adjudicate, but it shows that even if someone wants to convoy, the
	// player might not want an alternative route for the convoy.
	// England: A London - Belgium
	// England: F North Sea Convoys A London - Belgium
	// France: F English Channel Convoys A London - Belgium
	// Germany: F Holland Supports F Denmark - North Sea
	// Germany: F Denmark - North Sea
	// If France and German are allies, England want to keep its army in London, to defend the island. An army
	// in Belgium could easily be destroyed by an alliance of France and Germany. England tries to be friends with
	// Germany, however France and Germany trick England.
	// The convoy of the army in London succeeds and the fleet in Denmark dislodges the fleet in the North Sea.
	{id: "6.F.13", title: "THE UNWANTED ALTERNATIVE", script: `
		units ENGLAND: A LON, F NTH
		units FRANCE: F ENG
		units GERMANY: F HOL, F DEN
		orders ENGLAND: A LON - BEL; F NTH C A LON - BEL
		orders FRANCE: F ENG C A LON - BEL
		orders GERMANY: F HOL S F DEN - NTH; F DEN - NTH
		process
		result M A LON: ok
		result M F NTH: dislodged
		result M F ENG: ok
		result M F HOL: ok
		result M F DEN: ok
		dislodged F NTH by DEN
		owner A LON: none
		owner F NTH: GERMANY
		owner F ENG: FRANCE
		owner F HOL: GERMANY
		owner F DEN: none
		owner A BEL: ENGLAND
	`},
	// 6.F.14. SIMPLE CONVOY PARADOX
	// The most common paradox is when the attacked unit supports an attack on one of the convoying fleets.
	// England: F London Supports F Wales - English Channel
	// England: F Wales - English Channel
	// France: A Brest - London
	// France: F English Channel Convoys A Brest - London
	// This situation depends on how paradoxes are handled (see issue (4.A.2). In case of the 'All Hold' rule
	// (fully applied, not just as "backup" rule), both the movement of the English fleet in Wales as the France
	// convoy in Brest are part of the paradox and fail. In all other rules of paradoxical convoys (including the
	// Szykman rule which I prefer), the support of London is not cut. That means that the fleet in the English
	// Channel is dislodged.
	{id: "6.F.14", title: "SIMPLE CONVOY PARADOX", script: `
		units ENGLAND: F LON, F WAL
		units FRANCE: A BRE, F ENG
		orders ENGLAND: F LON S F WAL - ENG; F WAL - ENG
		orders FRANCE: A BRE - LON; F ENG C A BRE - LON
		process
		result M F LON: ok
		result M F WAL: ok
		result M A BRE: no_convoy
		result M F ENG: dislodged
		dislodged F ENG by WAL
		owner F LON: ENGLAND
		owner F WAL: none
		owner A BRE: FRANCE
		owner F ENG: ENGLAND
	`},
	// 6.F.15. SIMPLE CONVOY PARADOX WITH ADDITIONAL CONVOY
	// Paradox rules only apply on the paradox core.
	// England: F London Supports F Wales - English Channel
	// England: F Wales - English Channel
	// France: A Brest - London
	// France: F English Channel Convoys A Brest - London
	// Italy: F Irish Sea Convoys A North Africa - Wales
	// Italy: F Mid-Atlantic Ocean Convoys A North Africa - Wales
	// Italy: A North Africa - Wales
	// The Italian convoy is not part of the paradox core and should therefore succeed when the move of the
	// fleet in Wales is successful. This is the case except when the 'All Hold' paradox rule is used (fully
	// applied, not just as "backup" rule, see issue 4.A.2).
	// I prefer the Szykman rule, so I prefer that both the fleet in Wales as the army in North Africa succeed in
	// moving.
	{id: "6.F.15", title: "SIMPLE CONVOY PARADOX WITH ADDITIONAL CONVOY", script: `
		units ENGLAND: F LON, F WAL
		units FRANCE: A BRE, F ENG
		units ITALY: F IRI, F MAO, A NAF
		orders ENGLAND: F LON S F WAL - ENG; F WAL - ENG
		orders FRANCE: A BRE - LON; F ENG C A BRE - LON
		orders ITALY: F IRI C A NAF - WAL; F MAO C A NAF - WAL; A NAF - WAL
		process
		result M F LON: ok
		result M F WAL: ok
		result M A BRE: no_convoy
		result M F ENG: dislodged
		result M F IRI: ok
		result M F MAO: ok
		result M A NAF: ok
		dislodged F ENG by WAL
		owner F LON: ENGLAND
		owner A WAL: ITALY
		owner A BRE: FRANCE
		owner F ENG: ENGLAND
		owner F IRI: ITALY
		owner F MAO: ITALY
		owner A NAF: none
	`},
	// 6.F.16. PANDIN'S PARADOX
	// In Pandin's paradox, the attacked unit protects the convoying fleet by a beleaguered garrison.
	// England: F London Supports F Wales - English Channel
	// England: F Wales - English Channel
	// France: A Brest - London
	// France: F English Channel Convoys A Brest - London
	// Germany: F North Sea Supports F Belgium - English Channel
	// Germany: F Belgium - English Channel
	// In all the different rules for resolving convoy disruption paradoxes (see issue 4.A.2), the support
	// of London is not cut. That means that the fleet in the English Channel is not dislodged and none of the
	// units succeed to move.
	{id: "6.F.16", title: "PANDIN'S PARADOX", script: `
		units ENGLAND: F LON, F WAL
		units FRANCE: A BRE, F ENG
		units GERMANY: F NTH, F BEL
		orders ENGLAND: F LON S F WAL - ENG; F WAL - ENG
		orders FRANCE: A BRE - LON; F ENG C A BRE - LON
		orders GERMANY: F NTH S F BEL - ENG; F BEL - ENG
		process
		result M F LON: ok
		result M F WAL: bounce
		result M A BRE: no_convoy
		result M F ENG: disrupted
		result M F NTH: ok
		result M F BEL: bounce
		owner F LON: ENGLAND
		owner F WAL: ENGLAND
		owner A BRE: FRANCE
		owner F ENG: FRANCE
		owner F NTH: GERMANY
		owner F BEL: GERMANY
	`},
	// 6.F.17. PANDIN'S EXTENDED PARADOX
	// In Pandin's extended paradox, the attacked unit protects the convoying fleet by a beleaguered garrison and
	// the attacked unit can dislodge the unit that gives the protection.
	// England: F London Supports F Wales - English Channel
	// England: F Wales - English Channel
	// France: A Brest - London
	// France: F English Channel Convoys A Brest - London
	// France: F Yorkshire Supports A Brest - London
	// Germany: F North Sea Supports F Belgium - English Channel
	// Germany: F Belgium - English Channel
	// When the 1971, 1982 or 2000 rule is used (see issue 4.A.2), the support of London is not cut. That means
	// that the fleet in the English Channel is not dislodged. The convoy will succeed and dislodge the fleet in
	// London. You may argue that this violates the dislodge rule, but the common interpretation is that the
	// paradox convoy rules take precedence over the dislodge rule.
	// If the Simon Szykman alternative is used (which I prefer), the convoy fails and the fleet in London and
	// the English Channel are not dislodged. When the 'All Hold' (fully applied, not just as "backup" rule) or
	// the DPTG rule is used, the result is the same as the Simon Szykman alternative. The involved moves (the
	// move of the German fleet in Belgium and the convoying army in Brest) fail.
	{id: "6.F.17", title: "PANDIN'S EXTENDED PARADOX", script: `
		units ENGLAND: F LON, F WAL
		units FRANCE: A BRE, F ENG, F YOR
		units GERMANY: F NTH, F BEL
		orders ENGLAND: F LON S F WAL - ENG; F WAL - ENG
		orders FRANCE: A BRE - LON; F ENG C A BRE - LON; F YOR S A BRE - LON
		orders GERMANY: F NTH S F BEL - ENG; F BEL - ENG
		process
		result M F LON: ok
		result M F WAL: bounce
		result M A BRE: no_convoy
		result M F ENG: disrupted
		result M F YOR: no_convoy
		result M F NTH: ok
		result M F BEL: bounce
		owner F LON: ENGLAND
		owner F WAL: ENGLAND
		owner A BRE: FRANCE
		owner F ENG: FRANCE
		owner F YOR: FRANCE
		owner F NTH: GERMANY
		owner F BEL: GERMANY
	`},
	// 6.F.18. BETRAYAL PARADOX
	// The betrayal paradox is comparable to Pandin's paradox, but now the attacked unit direct supports the
	// convoying fleet. Of course, this will only happen when the player of the attacked unit is betrayed.
	// England: F North Sea Convoys A London - Belgium
	// England: A London - Belgium
	// England: F English Channel Supports A London - Belgium
	// France: F Belgium Supports F North Sea
	// Germany: F Helgoland Bight Supports F Skagerrak - North Sea
	// Germany: F Skagerrak - North Sea
	// If the English convoy from London to Belgium is successful, then it cuts the France support necessary to
	// hold the fleet in the North Sea (see issue 4.A.2).
	// The 1971 and 2000 ruling do not give an answer on this.
	// According to the 1982 ruling the French support on the North Sea will not be cut. So, the fleet in the
	// North Sea will not be dislodged by the Germans and the army in London will dislodge the French army in
	// Belgium.
	// If the Szykman rule is followed (which I prefer), the move of the army in London will fail and will not cut
	// support. That means that the fleet in the North Sea will not be dislodged. The 'All Hold' rule has the same
	// result as the Szykman rule, but with a different reason. The move of the army in London and the move of the
	// German fleet in Skagerrak will fail. Since a failing convoy does not result in a consistent resolution,
	// the DPTG gives the same result as the 'All Hold' rule.
	{id: "6.F.18", title: "BETRAYAL PARADOX", script: `
		units ENGLAND: F NTH, A LON, F ENG
		units FRANCE: F BEL
		units GERMANY: F HEL, F SKA
		orders ENGLAND: F NTH C A LON - BEL; A LON - BEL; F ENG S A LON - BEL
		orders FRANCE: F BEL S F NTH
		orders GERMANY: F HEL S F SKA - NTH; F SKA - NTH
		process
		result M F NTH: disrupted
		result M A LON: no_convoy
		result M F ENG: no_convoy
		result M F BEL: ok
		result M F HEL: ok
		result M F SKA: bounce
		owner F NTH: ENGLAND
		owner A LON: ENGLAND
		owner F ENG: ENGLAND
		owner F BEL: FRANCE
		owner F HEL: GERMANY
		owner F SKA: GERMANY
	`},
	// 6.F.19. MULTI-ROUTE CONVOY DISRUPTION PARADOX
	// The situation becomes more complex when the convoy has alternative routes.
	// France: A Tunis - Naples
	// France: F Tyrrhenian Sea Convoys A Tunis - Naples
	// France: F Ionian Sea Convoys A Tunis - Naples
	// Italy: F Naples Supports F Rome - Tyrrhenian Sea
	// Italy: F Rome - Tyrrhenian Sea
	// Now, two issues play a role. The ruling about disruption of convoys (issue 4.A.1) and the issue how
	// paradoxes are resolved (issue 4.A.2).
	// If the 1971 rule is used about multi-route convoys (when one of the routes is disrupted, the convoy fails),
	// this test case is just a simple paradox. For the 1971, 1982, 2000 and Szykman paradox rule, the support of
	// the fleet in Naples is not cut and the fleet in Rome dislodges the fleet in the Tyrrhenian Sea. When the
	// 'All Hold' rule is used, both the convoy of the army in Tunis as the move of the fleet in Rome will fail.
	// When the 1982 rule is used about multi-route convoy disruption, then convoys are disrupted when all routes
	// are disrupted (this is the rule I prefer). With this rule, the situation becomes paradoxical. According to
	// the 1971 and 1982 paradox rules, the support given by the fleet in Naples is not cut, that means that the
	// fleet in the Tyrrhenian Sea is dislodged.
	// According to the 2000 ruling the fleet in the Tyrrhenian Sea is not "necessary" for the convoy and the
	// support of Naples is cut and the fleet in the Tyrrhenian Sea is not dislodged.
	// If the Szykman rule is used (which I prefer), the 'All Hold' rule or the DPTG, then there is no paradoxical
	// situation. The support of Naples is cut and the fleet in the Tyrrhenian Sea is not dislodged.
	{id: "6.F.19", title: "MULTI-ROUTE CONVOY DISRUPTION PARADOX", script: `
		units FRANCE: A TUN, F TYS, F ION
		units ITALY: F NAP, F ROM
		orders FRANCE: A TUN - NAP; F TYS C A TUN - NAP; F ION C A TUN - NAP
		orders ITALY: F NAP S F ROM - TYS; F ROM - TYS
		process
		result M A TUN: bounce
		result M F TYS: ok
		result M F ION: ok
		result M F NAP: cut
		result M F ROM: bounce
		owner A TUN: FRANCE
		owner F TYS: FRANCE
		owner F ION: FRANCE
		owner F NAP: ITALY
		owner F ROM: ITALY
	`},
	// 6.F.20. UNWANTED MULTI-ROUTE CONVOY PARADOX
	// The 1982 paradox rule allows some creative defense.
	// France: A Tunis - Naples
	// France: F Tyrrhenian Sea Convoys A Tunis - Naples
	// Italy: F Naples Supports F Ionian Sea
	// Italy: F Ionian Sea Convoys A Tunis - Naples
	// Turkey: F Aegean Sea Supports F Eastern Mediterranean - Ionian Sea
	// Turkey: F Eastern Mediterranean - Ionian Sea
	// Again, two issues play a role. The ruling about disruption of multi-route convoys (issue 4.A.1) and the
	// issue how paradoxes are resolved (issue 4.A.2).
	// If the 1971 rule is used about multi-route convoys (when one of the routes is disrupted, the convoy fails),
	// the Italian convoy order in the Ionian Sea is not part of the convoy, because it is a foreign unit
	// (according to the DPTG).
	// That means that the fleet in the Ionian Sea is not a 'convoying' fleet. In all rulings the support of
	// Naples on the Ionian Sea is cut and the fleet in the Ionian Sea is dislodged by the Turkish fleet in the
	// Eastern Mediterranean. When the 1982 rule is used about multi-route convoy disruption, then convoys are
	// disrupted when all routes are disrupted (this is the rule I prefer). With this rule, the situation becomes
	// paradoxical. According to the 1971 and 1982 paradox rules, the support given by the fleet in Naples is not
	// cut, that means that the fleet in the Ionian Sea is not dislodged.
	// According to the 2000 ruling the fleet in the Ionian Sea is not "necessary" and the support of Naples is
	// cut and the fleet in the Ionian Sea is dislodged by the Turkish fleet in the Eastern Mediterranean.
	// If the Szykman rule, the 'All Hold' rule or DPTG is used, then there is no paradoxical situation. The
	// support of Naples is cut and the fleet in the Ionian Sea is dislodged by the Turkish fleet in the Eastern
	// Mediterranean. As you can see, the 1982 rules allows the Italian player to save its fleet in the Ionian Sea
	// with a trick. I do not consider this trick as normal tactical play. I prefer the Szykman rule as one of the
	// rules that does not allow this trick. According to this rule the fleet in the Ionian Sea is dislodged.
	{id: "6.F.20", title: "UNWANTED MULTI-ROUTE CONVOY PARADOX", script: `
		units FRANCE: A TUN, F TYS
		units ITALY: F NAP, F ION
		units TURKEY: F AEG, F EAS
		orders FRANCE: A TUN - NAP; F TYS C A TUN - NAP
		orders ITALY: F NAP S F ION; F ION C A TUN - NAP
		orders TURKEY: F AEG S F EAS - ION; F EAS - ION
		process
		result M A TUN: bounce
		result M F TYS: ok
		result M F NAP: cut
		result M F ION: dislodged
		result M F AEG: ok
		result M F EAS: ok
		dislodged F ION by EAS
		owner A TUN: FRANCE
		owner F TYS: FRANCE
		owner F NAP: ITALY
		owner F ION: TURKEY
		owner F AEG: TURKEY
		owner F EAS: none
	`},
	// 6.F.21. DAD'S ARMY CONVOY
	// The 1982 paradox rule has as side effect that convoying armies do not cut support in some situations that
	// are not paradoxical.
	// Russia: A Edinburgh Supports A Norway - Clyde
	// Russia: F Norwegian Sea Convoys A Norway - Clyde
	// Russia: A Norway - Clyde
	// France: F Irish Sea Supports F Mid-Atlantic Ocean - North Atlantic Ocean
	// France: F Mid-Atlantic Ocean - North Atlantic Ocean
	// England: A Liverpool - Clyde via Convoy
	// England: F North Atlantic Ocean Convoys A Liverpool - Clyde
	// England: F Clyde Supports F North Atlantic Ocean
	// In all rulings, except the 1982 paradox ruling, the support of the fleet in Clyde on the North Atlantic
	// Ocean is cut and the French fleet in the Mid-Atlantic Ocean will dislodge the fleet in the North Atlantic
	// Ocean. This is the preferred way. However, in the 1982 paradox rule (see issue 4.A.2), the support of the
	// fleet in Clyde is not cut. That means that the English fleet in the North Atlantic Ocean is not dislodged.
	// As you can see, the 1982 rule allows England to save its fleet in the North Atlantic Ocean in a very
	// strange way. Just the support of Clyde is insufficient (if there is no convoy, the support is cut). Only
	// the convoy to the area occupied by own unit, can do the trick in this situation. The embarking of troops
	// in the fleet deceives the enemy so much that it works as a magic cloak. The enemy is not able to dislodge
	// the fleet in the North Atlantic Ocean any more. Of course, this will only work in comedies. I prefer the
	// Szykman rule as one of the rules that does not allow this trick. According to this rule (and all other
	// paradox rules), the fleet in the North Atlantic is just dislodged.
	{id: "6.F.21", title: "DAD'S ARMY CONVOY", script: `
		units RUSSIA: A EDI, F NWG, A NWY
		units FRANCE: F IRI, F MAO
		units ENGLAND: A LVP, F NAO, F CLY
		orders RUSSIA: A EDI S A NWY - CLY; F NWG C A NWY - CLY; A NWY - CLY
		orders FRANCE: F IRI S F MAO - NAO; F MAO - NAO
		orders ENGLAND: A LVP - CLY VIA; F NAO C A LVP - CLY; F CLY S F NAO
		process
		result M A EDI: ok
		result M F NWG: ok
		result M A NWY: ok
		result M F IRI: ok
		result M F MAO: ok
		result M A LVP: no_convoy
		result M F NAO: dislodged
		result M F CLY: cut
		result M F CLY: dislodged
		dislodged F NAO by MAO
		dislodged F CLY by NWY
		owner A EDI: RUSSIA
		owner F NWG: RUSSIA
		owner A NWY: none
		owner F IRI: FRANCE
		owner F MAO: none
		owner A LVP: ENGLAND
		owner F NAO: FRANCE
		owner A CLY: RUSSIA
	`},
	// 6.F.22. SECOND ORDER PARADOX WITH TWO RESOLUTIONS
	// Two convoys are involved in a second order paradox.
	// England: F Edinburgh - North Sea
	// England: F London Supports F Edinburgh - North Sea
	// France: A Brest - London
	// France: F English Channel Convoys A Brest - London
	// Germany: F Belgium Supports F Picardy - English Channel
	// Germany: F Picardy - English Channel
	// Russia: A Norway - Belgium
	// Russia: F North Sea Convoys A Norway - Belgium
	// Without any paradox rule, there are two consistent resolutions. The supports of the English fleet in London
	// and the German fleet in Picardy are not cut. That means that the French fleet in the English Channel and
	// the Russian fleet in the North Sea are dislodged, which makes it impossible to cut the support. The other
	// resolution is that the supports of the English fleet in London the German fleet in Picardy are cut. In that
	// case the French fleet in the English Channel and the Russian fleet in the North Sea will survive and will
	// not be dislodged. This gives the possibility to cut the support.
	// The 1971 paradox rule and the 2000 rule (see issue 4.A.2) do not have an answer on this.
	// According to the 1982 rule, the supports are not cut which means that the French fleet in the English
	// Channel and the Russian fleet in the North Sea are dislodged.
	// The Szykman (which I prefer), has the same result as the 1982 rule. The supports are not cut, the convoying
	// armies fail to move, the fleet in Picardy dislodges the fleet in English Channel and the fleet in Edinburgh
	// dislodges the fleet in the North Sea.
	// The DPTG rule has in this case the same result as the Szykman rule, because the failing of all convoys is a
	// consistent resolution. So, the armies in Brest and Norway fail to move, while the fleets in Edinburgh and
	// Picardy succeed to move. When the 'All Hold' rule is used, the movement of the armies in Brest and Norway
	// as the fleets in Edinburgh and Picardy will fail.
	{id: "6.F.22", title: "SECOND ORDER PARADOX WITH TWO RESOLUTIONS", script: `
		units ENGLAND: F EDI, F LON
		units FRANCE: A BRE, F ENG
		units GERMANY: F BEL, F PIC
		units RUSSIA: A NWY, F NTH
		orders ENGLAND: F EDI - NTH; F LON S F EDI - NTH
		orders FRANCE: A BRE - LON; F ENG C A BRE - LON
		orders GERMANY: F BEL S F PIC - ENG; F PIC - ENG
		orders RUSSIA: A NWY - BEL; F NTH C A NWY - BEL
		process
		result M F EDI: ok
		result M F LON: ok
		result M A BRE: no_convoy
		result M F ENG: dislodged
		result M F BEL: ok
		result M F PIC: ok
		result M A NWY: no_convoy
		result M F NTH: dislodged
		dislodged F ENG by PIC
		dislodged F NTH by EDI
		owner F EDI: none
		owner F LON: ENGLAND
		owner A BRE: FRANCE
		owner F ENG: GERMANY
		owner F BEL: GERMANY
		owner F PIC: none
		owner A NWY: RUSSIA
		owner F NTH: ENGLAND
	`},
	// 6.F.23. SECOND ORDER PARADOX WITH TWO EXCLUSIVE CONVOYS
	// In this paradox there are two consistent resolutions, but where the two convoys do not fail or succeed at
	// the same time. This fact is important for the DPTG resolution.
	// England: F Edinburgh - North Sea
	// England: F Yorkshire Supports F Edinburgh - North Sea
	// France: A Brest - London
	// France: F English Channel Convoys A Brest - London
	// Germany: F Belgium Supports F English Channel
	// Germany: F London Supports F North Sea
	// Italy: F Mid-Atlantic Ocean - English Channel
	// Italy: F Irish Sea Supports F Mid-Atlantic Ocean - English Channel
	// Russia: A Norway - Belgium
	// Russia: F North Sea Convoys A Norway - Belgium
	// Without any paradox rule, there are two consistent resolutions. In one resolution, the convoy in the
	// English Channel is dislodged by the fleet in the Mid-Atlantic Ocean, while the convoy in the North Sea
	// succeeds. In the other resolution, it is the other way around. The convoy in the North Sea is dislodged by
	// the fleet in Edinburgh, while the convoy in the English Channel succeeds.
	// The 1971 paradox rule and the 2000 rule (see issue 4.A.2) do not have an answer on this.
	// According to the 1982 rule, the supports are not cut which means that the none of the units move.
	// The Szykman (which I prefer), has the same result as the 1982 rule. The convoying armies fail to move and
	// the supports are not cut. Because of the failure to cut the support, no fleet succeeds to move.
	// When the 'All Hold' rule is used, the movement of the armies and the fleets all fail.
	// Since there is no consistent resolution where all convoys fail, the DPTG rule has the same result as the
	// 'All Hold' rule. That means the movement of all units fail.
	{id: "6.F.23", title: "SECOND ORDER PARADOX WITH TWO EXCLUSIVE CONVOYS", script: `
		units ENGLAND: F EDI, F YOR
		units FRANCE: A BRE, F ENG
		units GERMANY: F BEL, F LON
		units ITALY: F MAO, F IRI
		units RUSSIA: A NWY, F NTH
		orders ENGLAND: F EDI - NTH; F YOR S F EDI - NTH
		orders FRANCE: A BRE - LON; F ENG C A BRE - LON
		orders GERMANY: F BEL S F ENG; F LON S F NTH
		orders ITALY: F MAO - ENG; F IRI S F MAO - ENG
		orders RUSSIA: A NWY - BEL; F NTH C A NWY - BEL
		process
		result M F EDI: bounce
		result M F YOR: ok
		result M A BRE: no_convoy
		result M F ENG: disrupted
		result M F BEL: ok
		result M F LON: ok
		result M F MAO: bounce
		result M F IRI: ok
		result M A NWY: no_convoy
		result M F NTH: disrupted
		owner F EDI: ENGLAND
		owner F YOR: ENGLAND
		owner A BRE: FRANCE
		owner F ENG: FRANCE
		owner F BEL: GERMANY
		owner F LON: GERMANY
		owner F MAO: ITALY
		owner F IRI: ITALY
		owner A NWY: RUSSIA
		owner F NTH: RUSSIA
	`},
	// 6.F.24. SECOND ORDER PARADOX WITH NO RESOLUTION
	// As first order paradoxes, second order paradoxes come in two flavors, with two resolutions or no resolution.
	// England: F Edinburgh - North Sea
	// England: F London Supports F Edinburgh - North Sea
	// England: F Irish Sea - English Channel
	// England: F Mid-Atlantic Ocean Supports F Irish Sea - English Channel
	// France: A Brest - London
	// France: F English Channel Convoys A Brest - London
	// France: F Belgium Supports F English Channel
	// Russia: A Norway - Belgium
	// Russia: F North Sea Convoys A Norway - Belgium
	// When no paradox rule is used, there is no consistent resolution. If the French support in Belgium is cut,
	// the French fleet in the English Channel will be dislodged. That means that the support of London will not
	// be cut and the fleet in Edinburgh will dislodge the Russian fleet in the North Sea. In this way the support
	// in Belgium is not cut! But if the support in Belgium is not cut, the Russian fleet in the North Sea will
	// not be dislodged and the army in Norway can cut the support in Belgium.
	// The 1971 paradox rule and the 2000 rule (see issue 4.A.2) do not have an answer on this. According to the
	// 1982 rule, the supports are not cut which means that the French fleet in the English Channel will survive
	// and but the Russian fleet in the North Sea is dislodged.
	// If the Szykman alternative is used (which I prefer), the supports are not cut and the convoying armies fail
	// to move, which has the same result as the 1982 rule in this case.
	// When the 'All Hold' rule is used, the movement of the armies in Brest and Norway as the fleets in Edinburgh
	// and the Irish Sea will fail. Since there is no consistent resolution where all convoys fail, the DPTG has
	// in this case the same result as the 'All Hold' rule.
	{id: "6.F.24", title: "SECOND ORDER PARADOX WITH NO RESOLUTION", script: `
		units ENGLAND: F EDI, F LON, F IRI, F MAO
		units FRANCE: A BRE, F ENG, F BEL
		units RUSSIA: A NWY, F NTH
		orders ENGLAND: F EDI - NTH; F LON S F EDI - NTH; F IRI - ENG; F MAO S F IRI - ENG
		orders FRANCE: A BRE - LON; F ENG C A BRE - LON; F BEL S F ENG
		orders RUSSIA: A NWY - BEL; F NTH C A NWY - BEL
		process
		result M F EDI: ok
		result M F LON: ok
		result M F IRI: bounce
		result M F MAO: ok
		result M A BRE: no_convoy
		result M F ENG: disrupted
		result M F BEL: ok
		result M A NWY: no_convoy
		result M F NTH: dislodged
		dislodged F NTH by EDI
		owner F EDI: none
		owner F LON: ENGLAND
		owner F IRI: ENGLAND
		owner F MAO: ENGLAND
		owner A BRE: FRANCE
		owner F ENG: FRANCE
		owner F BEL: FRANCE
		owner A NWY: RUSSIA
		owner F NTH: ENGLAND
	`},
	// 6.F.25. CUT SUPPORT LAST
	// For manual play the rule of thumb is, cut support first. However, in below example the support of Holland
	// is some of the last orders to adjudicated.
	// Germany: A Ruhr - Belgium
	// Germany: A Holland Supports A Ruhr - Belgium
	// Germany: A Denmark - Norway
	// Germany: F Skagerrak Convoys A Denmark - Norway
	// Germany: A Finland Supports A Denmark - Norway
	// England: A Yorkshire - Holland
	// England: F North Sea Convoys A Yorkshire - Holland
	// England: F Helgoland Bight Supports A Yorkshire - Holland
	// England: A Belgium Hold
	// Russia: F Norwegian Sea - North Sea
	// Russia: F Norway Supports F Norwegian Sea - North Sea
	// Russia: F Sweden - Skagerrak
	// The fleet in Sweden fails to disrupt the convoy in Skagerrak. The move from Denmark to Norway succeeds and
	// cuts the support of Norway. The fleet in the Norwegian Sea fails to disrupt the convoy in North Sea. The
	// move from Yorkshire to Holland succeeds and cuts the support of Holland. The move from Ruhr fails to
	// dislodge the army in Belgium.
	{id: "6.F.25", title: "CUT SUPPORT LAST", script: `
		units GERMANY: A RUH, A HOL, A DEN, F SKA, A FIN
		units ENGLAND: A YOR, F NTH, F HEL, A BEL
		units RUSSIA: F NWG, F NWY, F SWE
		orders GERMANY: A RUH - BEL; A HOL S A RUH - BEL; A DEN - NWY; F SKA C A DEN - NWY; A FIN S A DEN - NWY
		orders ENGLAND: A YOR - HOL; F NTH C A YOR - HOL; F HEL S A YOR - HOL; A BEL H
		orders RUSSIA: F NWG - NTH; F NWY S F NWG - NTH; F SWE - SKA
		process
		result M A RUH: bounce
		result M A HOL: dislodged
		result M A DEN: ok
		result M A YOR: ok
		result M F NWG: bounce
		result M F NWY: dislodged
		result M F SWE: bounce
		dislodged A HOL by YOR
		dislodged F NWY by DEN
		owner A RUH: GERMANY
		owner A BEL: ENGLAND
		owner A NWY: GERMANY
		owner A HOL: ENGLAND
		owner F NTH: ENGLAND
		owner F SKA: GERMANY
		owner F NWG: RUSSIA
		owner F SWE: RUSSIA
	`},
	// 6.G.1. TWO UNITS CAN SWAP PLACES BY CONVOY
	// The only way to swap two units, is by convoy.
	// England: A Norway - Sweden
	// England: F Skagerrak Convoys A Norway - Sweden
	// Russia: A Sweden - Norway
	// In most interpretation of the rules, the units in Norway and Sweden will be swapped. However, if
	// explicit adjacent convoying is used (see issue 4.A.3), then it is just a head to head battle.
	// I prefer the 2000 rules, so the units are swapped.
	{id: "6.G.1", title: "TWO UNITS CAN SWAP PLACES BY CONVOY", script: `
		units ENGLAND: A NWY, F SKA
		units RUSSIA: A SWE
		orders ENGLAND: A NWY - SWE; F SKA C A NWY - SWE
		orders RUSSIA: A SWE - NWY
		process
		result M A NWY: ok
		result M F SKA: ok
		result M A SWE: ok
		owner A NWY: RUSSIA
		owner F SKA: ENGLAND
		owner A SWE: ENGLAND
	`},
	// 6.G.2. KIDNAPPING AN ARMY
	// Germany promised England to support to dislodge the Russian fleet in Sweden and it promised Russia to
	// support to dislodge the English army in Norway. Instead, the joking German orders a convoy.
	// England: A Norway - Sweden
	// Russia: F Sweden - Norway
	// Germany: F Skagerrak Convoys A Norway - Sweden
	// See issue 4.A.3.
	// When the 1982/2000 rulebook is used (which I prefer), England has no intent to swap and it is just a head
	// to head battle were both units will fail to move. When explicit adjacent convoying is used (DPTG), the
	// English move is not a convoy and again it just a head to head battle were both units will fail to move.
	// In all other interpretations, the army in Norway will be convoyed and swap its place with the fleet in
	// Sweden.
	{id: "6.G.2", title: "KIDNAPPING AN ARMY", script: `
		units ENGLAND: A NWY
		units RUSSIA: F SWE
		units GERMANY: F SKA
		orders ENGLAND: A NWY - SWE
		orders RUSSIA: F SWE - NWY
		orders GERMANY: F SKA C A NWY - SWE
		process
		result M A NWY: bounce
		result M F SWE: bounce
		result M F SKA: no_convoy
		owner A NWY: ENGLAND
		owner F SWE: RUSSIA
		owner F SKA: GERMANY
	`},
	// 6.G.3. KIDNAPPING WITH A DISRUPTED CONVOY
	// When kidnapping of armies is allowed, a move can be sabotaged by a fleet that is almost certainly dislodged.
	// France: F Brest - English Channel
	// France: A Picardy - Belgium
	// France: A Burgundy Supports A Picardy - Belgium
	// France: F Mid-Atlantic Ocean Supports F Brest - English Channel
	// England: F English Channel Convoys A Picardy - Belgium
	// See issue 4.A.3. If a convoy always takes precedence over a land route (choice a), the move from Picardy to
	// Belgium fails. It tries to convoy and the convoy is disrupted.
	// For choice b and c, there is no unit moving in opposite direction for the move of the army in Picardy.
	// For this reason, the move for the army in Picardy is not by convoy and succeeds over land.
	// When the 1982 or 2000 rules are used (choice d), then it is not the "intent" of the French army in Picardy
	// to convoy. The move from Picardy to Belgium is just a successful move over land.
	// When explicit adjacent convoying is used (DPTG, choice e), the order of the French army in Picardy is not
	// a convoy order. So, it just ordered over land, and that move succeeds. This is an excellent example why
	// the convoy route should not automatically have priority over the land route. It would just be annoying for
	// the attacker and this situation is without fun. I prefer the 1982 rule with the 2000 clarification.
	// According to these rules the move from Picardy succeeds.
	{id: "6.G.3", title: "KIDNAPPING WITH A DISRUPTED CONVOY", script: `
		units FRANCE: F BRE, A PIC, A BUR, F MAO
		units ENGLAND: F ENG
		orders FRANCE: F BRE - ENG; A PIC - BEL; A BUR S A PIC - BEL; F MAO S F BRE - ENG
		orders ENGLAND: F ENG C A PIC - BEL
		process
		result M F BRE: ok
		result M A PIC: ok
		result M A BUR: ok
		result M F MAO: ok
		result M F ENG: dislodged
		result M F ENG: no_convoy
		dislodged F ENG by BRE
		owner F BRE: none
		owner A PIC: none
		owner A BUR: FRANCE
		owner F MAO: FRANCE
		owner F ENG: FRANCE
		owner A BEL: FRANCE
	`},
	// 6.G.4. KIDNAPPING WITH A DISRUPTED CONVOY AND OPPOSITE MOVE
	// In the situation of the previous test case it was rather clear that the army didn't want to take the
	// convoy. But what if there is an army moving in opposite direction?
	// France: F Brest - English Channel
	// France: A Picardy - Belgium
	// France: A Burgundy Supports A Picardy - Belgium
	// France: F Mid-Atlantic Ocean Supports F Brest - English Channel
	// England: F English Channel Convoys A Picardy - Belgium
	// England: A Belgium - Picardy
	// See issue 4.A.3. If a convoy always takes precedence over a land route (choice a), the move from Picardy to
	// Belgium fails. It tries to convoy and the convoy is disrupted.
	// For choice b the convoy is also taken, because there is a unit in Belgium moving in opposite direction.
	// This means that the convoy is disrupted and the move from Picardy to Belgium fails.
	// For choice c the convoy is not taken. Although, the unit in Belgium is moving in opposite direction,
	// the army will not take a disrupted convoy. So, the move from Picardy to Belgium succeeds.
	// When the 1982 or 2000 rules are used (choice d), then it is not the "intent" of the French army in Picardy
	// to convoy. The move from Picardy to Belgium is just a successful move over land.
	// When explicit adjacent convoying is used (DPTG, choice e), the order of the French army in Picardy is not
	// a convoy order. So, it just ordered over land, and that move succeeds.
	// Again an excellent example why the convoy route should not automatically have priority over the land route.
	// It would just be annoying for the attacker and this situation is without fun. I prefer the 1982 rule with
	// the 2000 clarification. According to these rules the move from Picardy succeeds.
	{id: "6.G.4", title: "KIDNAPPING WITH A DISRUPTED CONVOY AND OPPOSITE MOVE", script: `
		units FRANCE: F BRE, A PIC, A BUR, F MAO
		units ENGLAND: F ENG, A BEL
		orders FRANCE: F BRE - ENG; A PIC - BEL; A BUR S A PIC - BEL; F MAO S F BRE - ENG
		orders ENGLAND: F ENG C A PIC - BEL; A BEL - PIC
		process
		result M F BRE: ok
		result M A PIC: ok
		result M A BUR: ok
		result M F MAO: ok
		result M F ENG: dislodged
		result M F ENG: no_convoy
		result M A BEL: dislodged
		dislodged F ENG by BRE
		dislodged A BEL by PIC
		owner F BRE: none
		owner A PIC: none
		owner A BUR: FRANCE
		owner F MAO: FRANCE
		owner F ENG: FRANCE
		owner A BEL: FRANCE
	`},
	// 6.G.5. SWAPPING WITH INTENT
	// When one of the convoying fleets is of the same nationality of the convoyed army, the "intent" is to convoy.
	// Italy: A Rome - Apulia
	// Italy: F Tyrrhenian Sea Convoys A Apulia - Rome
	// Turkey: A Apulia - Rome
	// Turkey: F Ionian Sea Convoys A Apulia - Rome
	// See issue 4.A.3. When the 1982/2000 rulebook is used (which I prefer), the convoy depends on the "intent".
	// Since there is an own fleet in the convoy, the intent is to convoy and the armies in Rome and Apulia swap
	// places. For choices a, b and c of the issue there is also a convoy and the same swap takes place.
	// When explicit adjacent convoying is used (DPTG, choice e), then the Turkish army did not receive an order
	// to move by convoy. So, it is just a head to head battle and both the army in Rome and Apulia will not move.
	{id: "6.G.5", title: "SWAPPING WITH INTENT", script: `
		units ITALY: A ROM, F TYS
		units TURKEY: A APU, F ION
		orders ITALY: A ROM - APU; F TYS C A APU - ROM
		orders TURKEY: A APU - ROM; F ION C A APU - ROM
		process
		result M A ROM: ok
		result M F TYS: ok
		result M A APU: ok
		result M F ION: ok
		owner A ROM: TURKEY
		owner F TYS: ITALY
		owner A APU: ITALY
		owner F ION: TURKEY
	`},
	// 6.G.6. SWAPPING WITH UNINTENDED INTENT
	// The intent is questionable.
	// England: A Liverpool - Edinburgh
	// England: F English Channel Convoys A Liverpool - Edinburgh
	// Germany: A Edinburgh - Liverpool
	// France: F Irish Sea Hold
	// France: F North Sea Hold
	// Russia: F Norwegian Sea Convoys A Liverpool - Edinburgh
	// Russia: F North Atlantic Ocean Convoys A Liverpool - Edinburgh
	// See issue 4.A.3.
	// For choice a, b and c the English army in Liverpool will move by convoy and consequentially the two armies
	// are swapped. For choice d, the 1982/2000 rulebook (which I prefer), the convoy depends on the "intent".
	// England intended to convoy via the French fleets in the Irish Sea and the North Sea. However, the French
	// did not order the convoy. The alternative route with the Russian fleets was unintended. The English fleet
	// in the English Channel (with the convoy order) is not part of this alternative route with the Russian
	// fleets. Since England still "intent" to convoy, the move from Liverpool to Edinburgh should be via convoy
	// and the two armies are swapped. Although, you could argue that this is not really according to the
	// clarification of the 2000 rulebook. When explicit adjacent convoying is used (DPTG, choice e), then the
	// English army did not receive an order to move by convoy. So, it is just a head to head battle and both the
	// army in Edinburgh and Liverpool will not move.
	{id: "6.G.6", title: "SWAPPING WITH UNINTENDED INTENT", script: `
		units ENGLAND: A LVP, F ENG
		units GERMANY: A EDI
		units FRANCE: F IRI, F NTH
		units RUSSIA: F NWG, F NAO
		orders ENGLAND: A LVP - EDI; F ENG C A LVP - EDI
		orders GERMANY: A EDI - LVP
		orders FRANCE: F IRI H; F NTH H
		orders RUSSIA: F NWG C A LVP - EDI; F NAO C A LVP - EDI
		process
		result M A LVP: ok
		result M F ENG: no_convoy
		result M A EDI: ok
		result M F IRI: ok
		result M F NTH: ok
		result M F NWG: ok
		result M F NAO: ok
		owner A LVP: GERMANY
		owner F ENG: ENGLAND
		owner A EDI: ENGLAND
		owner F IRI: FRANCE
		owner F NTH: FRANCE
		owner F NWG: RUSSIA
		owner F NAO: RUSSIA
	`},
	// 6.G.7. SWAPPING WITH ILLEGAL INTENT
	// Can the intent made clear with an impossible order?
	// England: F Skagerrak Convoys A Sweden - Norway
	// England: F Norway - Sweden
	// Russia: A Sweden - Norway
	// Russia: F Gulf of Bothnia Convoys A Sweden - Norway
	// See issue 4.A.3 and 4.E.1.
	// If for issue 4.A.3 choice a, b or c has been taken, then the army in Sweden moves by convoy and swaps
	// places with the fleet in Norway.
	// However, if for issue 4.A.3 the 1982/2000 has been chosen (choice d), then the "intent" is important.
	// The question is whether the fleet in the Gulf of Bothnia can express the intent. If the order for this
	// fleet is considered illegal (see issue 4.E.1), then this order must be ignored and there is no intent to
	// swap. In that case none of the units move. If explicit convoying is used (DPTG, choice e of issue 4.A.3)
	// then the army in Sweden will take the land route and none of the units move.
	// I prefer the 1982/2000 rule and that any orders that can't be valid are illegal. So, the order of the fleet
	// in the Gulf of Bothnia is ignored and can not show the intent. There is no convoy, so no unit will move.
	{id: "6.G.7", title: "SWAPPING WITH ILLEGAL INTENT", script: `
		units ENGLAND: F SKA, F NWY
		units RUSSIA: A SWE, F BOT
		orders ENGLAND: F SKA C A SWE - NWY; F NWY - SWE
		orders RUSSIA: A SWE - NWY; F BOT C A SWE - NWY
		process
		result M F SKA: no_convoy
		result M F NWY: bounce
		result M A SWE: bounce
		result M F BOT: void
		owner F SKA: ENGLAND
		owner F NWY: ENGLAND
		owner A SWE: RUSSIA
		owner F BOT: RUSSIA
	`},
	// 6.G.8. EXPLICIT CONVOY THAT ISN'T THERE
	// What to do when a unit is explicitly ordered to move via convoy and the convoy is not there?
	// France: A Belgium - Holland via convoy
	// England: F North Sea - Helgoland Bight
	// England: A Holland - Kiel
	// The French army in Belgium intended to move convoyed with the English fleet in the North Sea. But England
	// changed its plans.
	// See issue 4.A.3.
	// In case of 1971 or 1982 rulebook, this test case not applicable, because they don't have the notion of
	// 'via convoy'.
	// For the 2000/2023 rulebook and the DPTG, the question is whether the land route should be used as
	// "fallback".
	// As discussed in the issue, I don't prefer fallback anymore.
	// (DATC 3.0 changed this case: no fallback, so the army in Belgium does not move. Preferred, taken here.)
	{id: "6.G.8", title: "EXPLICIT CONVOY THAT ISN'T THERE", script: `
		units FRANCE: A BEL
		units ENGLAND: F NTH, A HOL
		orders FRANCE: A BEL - HOL VIA
		orders ENGLAND: F NTH - HEL; A HOL - KIE
		process
		result M A BEL: no_convoy
		result M F NTH: ok
		result M A HOL: ok
		owner A BEL: FRANCE
		owner F NTH: none
		owner A HOL: none
		owner F HEL: ENGLAND
		owner A KIE: ENGLAND
	`},
	// 6.G.9. SWAPPED OR DISLODGED?
	// The 1982 rulebook says that whether the move is over land or via convoy depends on the "intent" as shown
	// by the totality of the orders written by the player governing the army (see issue 4.A.3). In this test
	// case the English army in Norway will end in all cases in Sweden. But whether it is convoyed or not has
	// effect on the Russian army. In case of convoy the Russian army ends in Norway and in case of a land route
	// the Russian army is dislodged.
	// England: A Norway - Sweden
	// England: F Skagerrak Convoys A Norway - Sweden
	// England: F Finland Supports A Norway - Sweden
	// Russia: A Sweden - Norway
	// See issue 4.A.3.
	// For choice a, b and c the move of the army in Norway is by convoy and the armies in Norway and Sweden are
	// swapped. If the 1982 rulebook is used with the clarification of the 2000 rulebook (choice d, which I
	// prefer), the intent of the English player is to convoy, since it ordered the fleet in Skagerrak to convoy.
	// Therefore, the armies in Norway and Sweden are swapped. When explicit adjacent convoying is used (DTPG,
	// choice e), then the unit in Norway did not receive an order to move by convoy and the land route should be
	// considered. The Russian army in Sweden is dislodged.
	{id: "6.G.9", title: "SWAPPED OR DISLODGED?", script: `
		units ENGLAND: A NWY, F SKA, F FIN
		units RUSSIA: A SWE
		orders ENGLAND: A NWY - SWE; F SKA C A NWY - SWE; F FIN S A NWY - SWE
		orders RUSSIA: A SWE - NWY
		process
		result M A NWY: ok
		result M F SKA: ok
		result M F FIN: ok
		result M A SWE: ok
		owner A NWY: RUSSIA
		owner F SKA: ENGLAND
		owner F FIN: ENGLAND
		owner A SWE: ENGLAND
	`},
	// 6.G.10. SWAPPED OR AN HEAD TO HEAD BATTLE?
	// Can a dislodged unit have effect on the attackers area, when the attacker moved by convoy?
	// England: A Norway - Sweden via Convoy
	// England: F Denmark Supports A Norway - Sweden
	// England: F Finland Supports A Norway - Sweden
	// Germany: F Skagerrak Convoys A Norway - Sweden
	// Russia: A Sweden - Norway
	// Russia: F Barents Sea Supports A Sweden - Norway
	// France: F Norwegian Sea - Norway
	// France: F North Sea Supports F Norwegian Sea - Norway
	// Since England ordered the army in Norway to move explicitly via convoy and the army in Sweden is moving
	// in opposite direction, only the convoyed route should be considered regardless of the rulebook used. It
	// is clear that the army in Norway will dislodge the Russian army in Sweden. Since the strength of three is
	// in all cases the strongest force. The army in Sweden will not advance to Norway, because it can not beat
	// the force in the Norwegian Sea. It will be dislodged by the army from Norway.
	// The more interesting question is whether French fleet in the Norwegian Sea is bounced by the Russian army
	// from Sweden. This depends on the interpretation of issue 4.A.7. If the rulebook is taken literally
	// (choice a), then a dislodged unit can not bounce a unit in the area where the attacker came from. This
	// would mean that the move of the fleet in the Norwegian Sea succeeds However, if choice b is taken
	// (which I prefer), then a bounce is still possible, when there is no head to head battle. So, the fleet in
	// the Norwegian Sea will fail to move.
	{id: "6.G.10", title: "SWAPPED OR AN HEAD TO HEAD BATTLE?", script: `
		units ENGLAND: A NWY, F DEN, F FIN
		units GERMANY: F SKA
		units RUSSIA: A SWE, F BAR
		units FRANCE: F NWG, F NTH
		orders ENGLAND: A NWY - SWE VIA; F DEN S A NWY - SWE; F FIN S A NWY - SWE
		orders GERMANY: F SKA C A NWY - SWE
		orders RUSSIA: A SWE - NWY; F BAR S A SWE - NWY
		orders FRANCE: F NWG - NWY; F NTH S F NWG - NWY
		process
		result M A NWY: ok
		result M F DEN: ok
		result M F FIN: ok
		result M F SKA: ok
		result M A SWE: bounce
		result M A SWE: dislodged
		result M F BAR: ok
		result M F NWG: bounce
		result M F NTH: ok
		dislodged A SWE by NWY
		owner A NWY: none
		owner F DEN: ENGLAND
		owner F FIN: ENGLAND
		owner F SKA: GERMANY
		owner A SWE: ENGLAND
		owner F BAR: RUSSIA
		owner F NWG: FRANCE
		owner F NTH: FRANCE
	`},
	// 6.G.11. A CONVOY TO AN ADJACENT PROVINCE WITH A PARADOX
	// In this case the convoy route is available when the land route is chosen and the convoy route is not
	// available when the convoy route is chosen.
	// England: F Norway Supports F North Sea - Skagerrak
	// England: F North Sea - Skagerrak
	// Russia: A Sweden - Norway
	// Russia: F Skagerrak Convoys A Sweden - Norway
	// Russia: F Barents Sea Supports A Sweden - Norway
	// See issue 4.A.2 and 4.A.3.
	// In case of the 1971 rulebook the move from Sweden to Norway is not a convoy (because Norway is not moving
	// in opposite direction) and the English fleet in Norway is dislodged and the fleet in Skagerrak will not be
	// dislodged.
	// In case of the 1982/2000/2023 rulebook, the question arises whether the land route is the fallback of the
	// convoy route. If not, then this is just the most simple convoy paradox. The fleet in Skagerrak is
	// dislodged and the army in Sweden will not advance.
	// In case fallback is possible, then the convoy is available when the land route is taken, but not
	// otherwise.
	// I prefer no fallback. That means that according to these preferences the fleet in the North Sea will
	// dislodge the Russian fleet in Skagerrak and the army in Sweden will not advance.
	// (Preferred, taken here: 2023 convoy intent, no fallback, Szykman rule for the paradox.)
	{id: "6.G.11", title: "A CONVOY TO AN ADJACENT PLACE WITH A PARADOX", script: `
		units ENGLAND: F NWY, F NTH
		units RUSSIA: A SWE, F SKA, F BAR
		orders ENGLAND: F NWY S F NTH - SKA; F NTH - SKA
		orders RUSSIA: A SWE - NWY; F SKA C A SWE - NWY; F BAR S A SWE - NWY
		process
		result M F NWY: ok
		result M F NTH: ok
		result M A SWE: no_convoy
		result M F SKA: dislodged
		result M F BAR: no_convoy
		dislodged F SKA by NTH
		owner F NWY: ENGLAND
		owner F NTH: none
		owner A SWE: RUSSIA
		owner F SKA: ENGLAND
		owner F BAR: RUSSIA
	`},
	// 6.G.12. SWAPPING TWO UNITS WITH TWO CONVOYS
	// Of course, two armies can also swap by when they are both convoyed.
	// England: A Liverpool - Edinburgh via Convoy
	// England: F North Atlantic Ocean Convoys A Liverpool - Edinburgh
	// England: F Norwegian Sea Convoys A Liverpool - Edinburgh
	// Germany: A Edinburgh - Liverpool via Convoy
	// Germany: F North Sea Convoys A Edinburgh - Liverpool
	// Germany: F English Channel Convoys A Edinburgh - Liverpool
	// Germany: F Irish Sea Convoys A Edinburgh - Liverpool
	// The armies in Liverpool and Edinburgh are swapped.
	{id: "6.G.12", title: "SWAPPING TWO UNITS WITH TWO CONVOYS", script: `
		units ENGLAND: A LVP, F NAO, F NWG
		units GERMANY: A EDI, F NTH, F ENG, F IRI
		orders ENGLAND: A LVP - EDI VIA; F NAO C A LVP - EDI; F NWG C A LVP - EDI
		orders GERMANY: A EDI - LVP VIA; F NTH C A EDI - LVP; F ENG C A EDI - LVP; F IRI C A EDI - LVP
		process
		result M A LVP: ok
		result M F NAO: ok
		result M F NWG: ok
		result M A EDI: ok
		result M F NTH: ok
		result M F ENG: ok
		result M F IRI: ok
		owner A LVP: GERMANY
		owner F NAO: ENGLAND
		owner F NWG: ENGLAND
		owner A EDI: ENGLAND
		owner F NTH: GERMANY
		owner F ENG: GERMANY
		owner F IRI: GERMANY
	`},
	// 6.G.13. SUPPORT CUT ON ATTACK ON ITSELF VIA CONVOY
	// If a unit is attacked by a supported unit, it is not possible to prevent dislodgement by trying to cut
	// the support. But what, if a move is attempted via a convoy?
	// Austria: F Adriatic Sea Convoys A Trieste - Venice
	// Austria: A Trieste - Venice via Convoy
	// Italy: A Venice Supports F Albania - Trieste
	// Italy: F Albania - Trieste
	// First it should be mentioned that if for issue 4.A.3 choice b or c is taken, then the move from Trieste
	// to Venice is just a move over land, because the army in Venice is not moving in opposite direction. In that
	// case, the support of Venice will not be cut as normal.
	// In any other choice for issue 4.A.3, it should be decided whether the Austrian attack is considered to be
	// coming from Trieste or from the Adriatic Sea. If it comes from Trieste, the support in Venice is not cut
	// and the army in Trieste is dislodged by the fleet in Albania. If the Austrian attack is considered to be
	// coming from the Adriatic Sea, then the support is cut and the army in Trieste will not be dislodged. See
	// also issue 4.A.4. First of all, I prefer the 1982/2000 rules for adjacent convoying. This means that I
	// prefer the move from Trieste uses the convoy. Furthermore, I think that the two Italian units are still
	// stronger than the army in Trieste. Therefore, I prefer that the support in Venice is not cut and that the
	// army in Trieste is dislodged by the fleet in Albania.
	{id: "6.G.13", title: "SUPPORT CUT ON ATTACK ON ITSELF VIA CONVOY", script: `
		units AUSTRIA: F ADR, A TRI
		units ITALY: A VEN, F ALB
		orders AUSTRIA: F ADR C A TRI - VEN; A TRI - VEN VIA
		orders ITALY: A VEN S F ALB - TRI; F ALB - TRI
		process
		result M F ADR: ok
		result M A TRI: dislodged
		result M A TRI: bounce
		result M A VEN: ok
		result M F ALB: ok
		dislodged A TRI by ALB
		owner F ADR: AUSTRIA
		owner F TRI: ITALY
		owner A VEN: ITALY
		owner F ALB: none
	`},
	// 6.G.14. BOUNCE BY CONVOY TO ADJACENT PLACE
	// Similar to test case 6.G.10, but now the other unit is taking the convoy.
	// England: A Norway - Sweden
	// England: F Denmark Supports A Norway - Sweden
	// England: F Finland Supports A Norway - Sweden
	// France: F Norwegian Sea - Norway
	// France: F North Sea Supports F Norwegian Sea - Norway
	// Germany: F Skagerrak Convoys A Sweden - Norway
	// Russia: A Sweden - Norway via Convoy
	// Russia: F Barents Sea Supports A Sweden - Norway
	// Again the army in Sweden is bounced by the fleet in the Norwegian Sea. The army in Norway will move to
	// Sweden and dislodge the Russian army.
	// The final destination of the fleet in the Norwegian Sea depends on how issue 4.A.7 is resolved. If
	// choice a is taken, then the fleet advances to Norway, but if choice b is taken (which I prefer) the fleet
	// bounces and stays in the Norwegian Sea.
	{id: "6.G.14", title: "BOUNCE BY CONVOY TO ADJACENT PLACE", script: `
		units ENGLAND: A NWY, F DEN, F FIN
		units FRANCE: F NWG, F NTH
		units GERMANY: F SKA
		units RUSSIA: A SWE, F BAR
		orders ENGLAND: A NWY - SWE; F DEN S A NWY - SWE; F FIN S A NWY - SWE
		orders FRANCE: F NWG - NWY; F NTH S F NWG - NWY
		orders GERMANY: F SKA C A SWE - NWY
		orders RUSSIA: A SWE - NWY VIA; F BAR S A SWE - NWY
		process
		result M A NWY: ok
		result M F DEN: ok
		result M F FIN: ok
		result M F NWG: bounce
		result M F NTH: ok
		result M F SKA: ok
		result M A SWE: dislodged
		result M A SWE: bounce
		result M F BAR: ok
		dislodged A SWE by NWY
		owner A NWY: none
		owner F DEN: ENGLAND
		owner F FIN: ENGLAND
		owner F NWG: FRANCE
		owner F NTH: FRANCE
		owner F SKA: GERMANY
		owner A SWE: ENGLAND
		owner F BAR: RUSSIA
	`},
	// 6.G.15. BOUNCE AND DISLODGE WITH DOUBLE CONVOY
	// Similar to test case 6.G.10, but now both units use a convoy and without some support.
	// England: F North Sea Convoys A London - Belgium
	// England: A Holland Supports A London - Belgium
	// England: A Yorkshire - London
	// England: A London - Belgium via Convoy
	// France: F English Channel Convoys A Belgium - London
	// France: A Belgium - London via Convoy
	// The French army in Belgium is bounced by the army from Yorkshire. The army in London move to Belgium,
	// dislodging the unit there.
	// The final destination of the army in the Yorkshire depends on how issue 4.A.7 is resolved. If choice a is
	// taken, then the army advances to London, but if choice b is taken (which I prefer) the army bounces and
	// stays in Yorkshire.
	{id: "6.G.15", title: "BOUNCE AND DISLODGE WITH DOUBLE CONVOY", script: `
		units ENGLAND: F NTH, A HOL, A YOR, A LON
		units FRANCE: F ENG, A BEL
		orders ENGLAND: F NTH C A LON - BEL; A HOL S A LON - BEL; A YOR - LON; A LON - BEL VIA
		orders FRANCE: F ENG C A BEL - LON; A BEL - LON VIA
		process
		result M F NTH: ok
		result M A HOL: ok
		result M A YOR: bounce
		result M A LON: ok
		result M F ENG: ok
		result M A BEL: bounce
		result M A BEL: dislodged
		dislodged A BEL by LON
		owner F NTH: ENGLAND
		owner A HOL: ENGLAND
		owner A YOR: ENGLAND
		owner A LON: none
		owner F ENG: FRANCE
		owner A BEL: ENGLAND
	`},
	// 6.G.16. THE TWO UNIT IN ONE AREA BUG, MOVING BY CONVOY
	// If the adjudicator is not correctly implemented, this may lead to a resolution where two units end up in
	// the same area.
	// England: A Norway - Sweden
	// England: A Denmark Supports A Norway - Sweden
	// England: F Baltic Sea Supports A Norway - Sweden
	// England: F North Sea - Norway
	// Russia: A Sweden - Norway via Convoy
	// Russia: F Skagerrak Convoys A Sweden - Norway
	// Russia: F Norwegian Sea Supports A Sweden - Norway
	// See decision details 5.B.6. If the 'PREVENT STRENGTH' is incorrectly implemented, due to the fact that it
	// does not take into account that the 'PREVENT STRENGTH' is only zero when the unit is engaged in a head to
	// head battle, then this goes wrong in this test case. The 'PREVENT STRENGTH' of Sweden would be zero,
	// because the opposing unit in Norway successfully moves. Since, this strength would be zero, the fleet in
	// the North Sea would move to Norway. However, although the 'PREVENT STRENGTH' is zero, the army in Sweden
	// would also move to Norway. So, the final result would contain two units that successfully moved to Norway.
	// Of course, this is incorrect. Norway will indeed successfully move to Sweden while the army in Sweden ends
	// in Norway, because it is stronger then the fleet in the North Sea. This fleet will stay in the North Sea.
	{id: "6.G.16", title: "THE TWO UNIT IN ONE AREA BUG, MOVING BY CONVOY", script: `
		units ENGLAND: A NWY, A DEN, F BAL, F NTH
		units RUSSIA: A SWE, F SKA, F NWG
		orders ENGLAND: A NWY - SWE; A DEN S A NWY - SWE; F BAL S A NWY - SWE; F NTH - NWY
		orders RUSSIA: A SWE - NWY VIA; F SKA C A SWE - NWY; F NWG S A SWE - NWY
		process
		result M A NWY: ok
		result M A DEN: ok
		result M F BAL: ok
		result M F NTH: bounce
		result M A SWE: ok
		result M F SKA: ok
		result M F NWG: ok
		owner A NWY: RUSSIA
		owner A DEN: ENGLAND
		owner F BAL: ENGLAND
		owner F NTH: ENGLAND
		owner A SWE: ENGLAND
		owner F SKA: RUSSIA
		owner F NWG: RUSSIA
	`},
	// 6.G.17. THE TWO UNIT IN ONE AREA BUG, MOVING OVER LAND
	// Similar to the previous test case, but now the other unit moves by convoy.
	// England: A Norway - Sweden via Convoy
	// England: A Denmark Supports A Norway - Sweden
	// England: F Baltic Sea Supports A Norway - Sweden
	// England: F Skagerrak Convoys A Norway - Sweden
	// England: F North Sea - Norway
	// Russia: A Sweden - Norway
	// Russia: F Norwegian Sea Supports A Sweden - Norway
	// Sweden and Norway are swapped, while the fleet in the North Sea will bounce.
	{id: "6.G.17", title: "THE TWO UNIT IN ONE AREA BUG, MOVING OVER LAND", script: `
		units ENGLAND: A NWY, A DEN, F BAL, F SKA, F NTH
		units RUSSIA: A SWE, F NWG
		orders ENGLAND: A NWY - SWE VIA; A DEN S A NWY - SWE; F BAL S A NWY - SWE; F SKA C A NWY - SWE; F NTH - NWY
		orders RUSSIA: A SWE - NWY; F NWG S A SWE - NWY
		process
		result M A NWY: ok
		result M A DEN: ok
		result M F BAL: ok
		result M F SKA: ok
		result M F NTH: bounce
		result M A SWE: ok
		result M F NWG: ok
		owner A NWY: RUSSIA
		owner A DEN: ENGLAND
		owner F BAL: ENGLAND
		owner F SKA: ENGLAND
		owner F NTH: ENGLAND
		owner A SWE: ENGLAND
		owner F NWG: RUSSIA
	`},
	// 6.G.18. THE TWO UNIT IN ONE AREA BUG, WITH DOUBLE CONVOY
	// Similar to the previous test case, but now both units move by convoy.
	// England: F North Sea Convoys A London - Belgium
	// England: A Holland Supports A London - Belgium
	// England: A Yorkshire - London
	// England: A London - Belgium
	// England: A Ruhr Supports A London - Belgium
	// France: F English Channel Convoys A Belgium - London
	// France: A Belgium - London
	// France: A Wales Supports A Belgium - London
	// Belgium and London are swapped, while the army in Yorkshire fails to move to London.
	{id: "6.G.18", title: "THE TWO UNIT IN ONE AREA BUG, WITH DOUBLE CONVOY", script: `
		units ENGLAND: F NTH, A HOL, A YOR, A LON, A RUH
		units FRANCE: F ENG, A BEL, A WAL
		orders ENGLAND: F NTH C A LON - BEL; A HOL S A LON - BEL; A YOR - LON; A LON - BEL; A RUH S A LON - BEL
		orders FRANCE: F ENG C A BEL - LON; A BEL - LON; A WAL S A BEL - LON
		process
		result M F NTH: ok
		result M A HOL: ok
		result M A YOR: bounce
		result M A LON: ok
		result M A RUH: ok
		result M F ENG: ok
		result M A BEL: ok
		result M A WAL: ok
		owner F NTH: ENGLAND
		owner A HOL: ENGLAND
		owner A YOR: ENGLAND
		owner A LON: FRANCE
		owner A RUH: ENGLAND
		owner F ENG: FRANCE
		owner A BEL: ENGLAND
		owner A WAL: FRANCE
	`},
	// 6.G.19. SWAPPING WITH INTENT OF UNNECESSARY CONVOY
	// Can the intent made clear by the order of a fleet that is not necessary?
	// France: A Marseilles - Spain
	// France: F Western Mediterranean Convoys A Marseilles - Spain
	// Italy: F Gulf of Lyon Convoys A Marseilles - Spain
	// Italy: A Spain - Marseilles
	// See issue 4.A.3 and 4.E.1.
	// In case the 1971 rules are used, the intent is not important and the units in Marseilles and Spain swap.
	// The point of interest is that there is a convoy route from Marseilles, Gulf of Lyon, Western
	// Mediterranean to Spain. However, the fleet in Western Mediterranean is not necessary for this convoy and
	// not necessary for any other convoy route. Therefore, this order should be considered illegal. Webbased
	// adjudicators should not give this order as an option.
	// With the 2023 rules (which I prefer) illegal orders are ignored. The fleet in Gulf of Lyon is foreign and
	// foreign units cannot express intent. With this, there is no intent to convoy and the units in Marseilles
	// and Spain fail to move.
	// If explicit adjacent convoying is used (DPTG) there is also no convoy and none of the units move.
	// (Preferred, taken here: a convoy order by a fleet that no minimal route needs is illegal.)
	{id: "6.G.19", title: "SWAPPING WITH INTENT OF UNNECESSARY CONVOY", script: `
		units FRANCE: A MAR, F WES
		units ITALY: F LYO, A SPA
		orders FRANCE: A MAR - SPA; F WES C A MAR - SPA
		orders ITALY: F LYO C A MAR - SPA; A SPA - MAR
		process
		result M A MAR: bounce
		result M F WES: void
		result M A SPA: bounce
		owner A MAR: FRANCE
		owner A SPA: ITALY
	`},
	// 6.G.20. EXPLICIT CONVOY TO ADJACENT PROVINCE DISRUPTED
	// If a move to adjacent province was explicit via convoy, and the convoy is disrupted, should it fall back
	// to the land route?
	// France: F Brest - English Channel
	// France: A Picardy - Belgium via Convoy
	// France: A Burgundy Supports A Picardy - Belgium
	// France: F Mid-Atlantic Ocean Supports F Brest - English Channel
	// England: F English Channel Convoys A Picardy - Belgium
	// This situation is not applicable for the 1971 and 1982 rulebooks, because they don't have the notion of
	// 'via convoy'.
	// For the 2000/2023 rulebook the question arises whether the army in Picardy will fall back to the land
	// route, since the convoy route is disrupted. See issue 4.A.3.
	// I don't prefer the fallback anymore. So, the move of Picardy fails.
	// (Preferred, taken here: no fallback.)
	{id: "6.G.20", title: "EXPLICIT CONVOY TO ADJACENT PROVINCE DISRUPTED", script: `
		units FRANCE: F BRE, A PIC, A BUR, F MAO
		units ENGLAND: F ENG
		orders FRANCE: F BRE - ENG; A PIC - BEL VIA; A BUR S A PIC - BEL; F MAO S F BRE - ENG
		orders ENGLAND: F ENG C A PIC - BEL
		process
		result M F BRE: ok
		result M A PIC: no_convoy
		result M F ENG: dislodged
		dislodged F ENG by BRE
		owner F ENG: FRANCE
		owner A PIC: FRANCE
		owner A BEL: none
	`},
	// 6.H.1. NO SUPPORTS DURING RETREAT
	// Supports are not allowed in the retreat phase.
	// Austria: F Trieste Hold
	// Austria: A Serbia Hold
	// Turkey: F Greece Hold
	// Italy: A Venice Supports A Tyrolia - Trieste
	// Italy: A Tyrolia - Trieste
	// Italy: F Ionian Sea - Greece
	// Italy: F Aegean Sea Supports F Ionian Sea - Greece
	// The fleet in Trieste and the fleet in Greece are dislodged. If the retreat orders are as follows:
	// Austria: F Trieste - Albania
	// Austria: A Serbia Supports F Trieste - Albania
	// Turkey: F Greece - Albania
	// The Austrian support order is illegal. Both dislodged fleets are disbanded.
	{id: "6.H.1", title: "NO SUPPORTS DURING RETREAT", script: `
		units AUSTRIA: F TRI, A SER
		units TURKEY: F GRE
		units ITALY: A VEN, A TYR, F ION, F AEG
		orders AUSTRIA: F TRI H; A SER H
		orders TURKEY: F GRE H
		orders ITALY: A VEN S A TYR - TRI; A TYR - TRI; F ION - GRE; F AEG S F ION - GRE
		process
		result M F TRI: dislodged
		result M A SER: ok
		result M F GRE: dislodged
		result M A VEN: ok
		result M A TYR: ok
		result M F ION: ok
		result M F AEG: ok
		dislodged F TRI by TYR
		dislodged F GRE by ION
		owner A TRI: ITALY
		owner A SER: AUSTRIA
		owner F GRE: ITALY
		owner A VEN: ITALY
		owner A TYR: none
		owner F ION: none
		owner F AEG: ITALY
		orders AUSTRIA: F TRI R ALB; A SER S F TRI - ALB
		orders TURKEY: F GRE R ALB
		process
		result R F TRI: bounce
		result R F TRI: disband
		result R A SER: void
		result R F GRE: bounce
		result R F GRE: disband
		notdislodged F TRI
		notdislodged F GRE
		owner A TRI: ITALY
		owner A SER: AUSTRIA
		owner F GRE: ITALY
		owner A VEN: ITALY
		owner A TYR: none
		owner F ION: none
		owner F AEG: ITALY
		owner F ALB: none
	`},
	// 6.H.2. NO SUPPORTS FROM RETREATING UNIT
	// Even a retreating unit can not give support.
	// England: A Liverpool - Edinburgh
	// England: F Yorkshire Supports A Liverpool - Edinburgh
	// England: F Norway Hold
	// Germany: A Kiel Supports A Ruhr - Holland
	// Germany: A Ruhr - Holland
	// Russia: F Edinburgh Hold
	// Russia: A Sweden Supports A Finland - Norway
	// Russia: A Finland - Norway
	// Russia: F Holland Hold
	// The English fleet in Norway and the Russian fleets in Edinburgh and Holland are dislodged. If the
	// following retreat orders are given:
	// England: F Norway - North Sea
	// Russia: F Edinburgh - North Sea
	// Russia: F Holland Supports F Edinburgh - North Sea
	// Although the fleet in Holland may receive an order, it may not support (it is disbanded).
	// The English fleet in Norway and the Russian fleet in Edinburgh bounce and are disbanded.
	{id: "6.H.2", title: "NO SUPPORTS FROM RETREATING UNIT", script: `
		units ENGLAND: A LVP, F YOR, F NWY
		units GERMANY: A KIE, A RUH
		units RUSSIA: F EDI, A SWE, A FIN, F HOL
		orders ENGLAND: A LVP - EDI; F YOR S A LVP - EDI; F NWY H
		orders GERMANY: A KIE S A RUH - HOL; A RUH - HOL
		orders RUSSIA: F EDI H; A SWE S A FIN - NWY; A FIN - NWY; F HOL H
		process
		result M A LVP: ok
		result M F YOR: ok
		result M F NWY: dislodged
		result M A KIE: ok
		result M A RUH: ok
		result M F EDI: dislodged
		result M A SWE: ok
		result M A FIN: ok
		result M F HOL: dislodged
		dislodged F NWY by FIN
		dislodged F EDI by LVP
		dislodged F HOL by RUH
		owner A LVP: none
		owner F YOR: ENGLAND
		owner A NWY: RUSSIA
		owner A KIE: GERMANY
		owner A RUH: none
		owner A EDI: ENGLAND
		owner A SWE: RUSSIA
		owner A FIN: none
		owner A HOL: GERMANY
		orders ENGLAND: F NWY R NTH
		orders RUSSIA: F EDI R NTH; F HOL S F EDI - NTH
		process
		result R F NWY: bounce
		result R F NWY: disband
		result R F EDI: bounce
		result R F EDI: disband
		result R F HOL: void
		result R F EDI: disband
		notdislodged F NWY
		notdislodged F EDI
		notdislodged F HOL
		owner A LVP: none
		owner F YOR: ENGLAND
		owner A NWY: RUSSIA
		owner A KIE: GERMANY
		owner A RUH: none
		owner A EDI: ENGLAND
		owner A SWE: RUSSIA
		owner A FIN: none
		owner A HOL: GERMANY
		owner F NTH: none
	`},
	// 6.H.3. NO CONVOY DURING RETREAT
	// Convoys during retreat are not allowed.
	// England: F North Sea Hold
	// England: A Holland Hold
	// Germany: F Kiel Supports A Ruhr - Holland
	// Germany: A Ruhr - Holland
	// The English army in Holland is dislodged. If England orders the following in retreat:
	// England: A Holland - Yorkshire
	// England: F North Sea Convoys A Holland - Yorkshire
	// The convoy order is illegal. The army in Holland is disbanded.
	{id: "6.H.3", title: "NO CONVOY DURING RETREAT", script: `
		units ENGLAND: F NTH, A HOL
		units GERMANY: F KIE, A RUH
		orders ENGLAND: F NTH H; A HOL H
		orders GERMANY: F KIE S A RUH - HOL; A RUH - HOL
		process
		result M F NTH: ok
		result M A HOL: dislodged
		result M F KIE: ok
		result M A RUH: ok
		dislodged A HOL by RUH
		owner F NTH: ENGLAND
		owner A HOL: GERMANY
		owner F KIE: GERMANY
		owner A RUH: none
		orders ENGLAND: A HOL R YOR; F NTH C A HOL - YOR
		process
		result R F NTH: void
		result R A HOL: void
		result R A HOL: disband
		notdislodged A HOL
		owner F NTH: ENGLAND
		owner A HOL: GERMANY
		owner F KIE: GERMANY
		owner A RUH: none
		owner A YOR: none
	`},
	// 6.H.4. NO OTHER MOVES DURING RETREAT
	// Of course you may not do any other move during a retreat. But look if the adjudicator checks for it.
	// England: F North Sea Hold
	// England: A Holland Hold
	// Germany: F Kiel Supports A Ruhr - Holland
	// Germany: A Ruhr - Holland
	// The English army in Holland is dislodged. If England orders the following in retreat:
	// England: A Holland - Belgium
	// England: F North Sea - Norwegian Sea
	// The fleet in the North Sea is not dislodge, so the move is illegal.
	{id: "6.H.4", title: "NO OTHER MOVES DURING RETREAT", script: `
		units ENGLAND: F NTH, A HOL
		units GERMANY: F KIE, A RUH
		orders ENGLAND: F NTH H; A HOL H
		orders GERMANY: F KIE S A RUH - HOL; A RUH - HOL
		process
		result M F NTH: ok
		result M A HOL: dislodged
		result M F KIE: ok
		result M A RUH: ok
		dislodged A HOL by RUH
		owner F NTH: ENGLAND
		owner A HOL: GERMANY
		owner F KIE: GERMANY
		owner A RUH: none
		orders ENGLAND: A HOL R BEL; F NTH R NWG
		process
		result R F NTH: void
		result R A HOL: ok
		notdislodged A HOL
		owner F NTH: ENGLAND
		owner A HOL: GERMANY
		owner F KIE: GERMANY
		owner A RUH: none
		owner A BEL: ENGLAND
	`},
	// 6.H.5. A UNIT MAY NOT RETREAT TO THE AREA FROM WHICH IT IS ATTACKED
	// Well, that would be of course stupid. Still, the adjudicator must be tested on this.
	// Russia: F Constantinople Supports F Black Sea - Ankara
	// Russia: F Black Sea - Ankara
	// Turkey: F Ankara Hold
	// Fleet in Ankara is dislodged and may not retreat to Black Sea.
	{id: "6.H.5", title: "A UNIT MAY NOT RETREAT TO THE AREA FROM WHICH IT IS ATTACKED", script: `
		units RUSSIA: F CON, F BLA
		units TURKEY: F ANK
		orders RUSSIA: F CON S F BLA - ANK; F BLA - ANK
		orders TURKEY: F ANK H
		process
		result M F CON: ok
		result M F BLA: ok
		result M F ANK: dislodged
		dislodged F ANK by BLA
		owner F CON: RUSSIA
		owner F BLA: none
		owner F ANK: RUSSIA
		orders TURKEY: F ANK R BLA
		process
		result R F ANK: void
		result R F ANK: disband
		notdislodged F ANK
		owner F CON: RUSSIA
		owner F BLA: none
		owner F ANK: RUSSIA
	`},
	// 6.H.6. UNIT MAY NOT RETREAT TO A CONTESTED AREA
	// Stand off prevents retreat to the area.
	// Austria: A Budapest Supports A Trieste - Vienna
	// Austria: A Trieste - Vienna
	// Germany: A Munich - Bohemia
	// Germany: A Silesia - Bohemia
	// Italy: A Vienna Hold
	// The Italian army in Vienna is dislodged. It may not retreat to Bohemia.
	{id: "6.H.6", title: "UNIT MAY NOT RETREAT TO A CONTESTED AREA", script: `
		units AUSTRIA: A BUD, A TRI
		units GERMANY: A MUN, A SIL
		units ITALY: A VIE
		orders AUSTRIA: A BUD S A TRI - VIE; A TRI - VIE
		orders GERMANY: A MUN - BOH; A SIL - BOH
		orders ITALY: A VIE H
		process
		result M A BUD: ok
		result M A TRI: ok
		result M A MUN: bounce
		result M A SIL: bounce
		result M A VIE: dislodged
		dislodged A VIE by TRI
		owner A BUD: AUSTRIA
		owner A TRI: none
		owner A MUN: GERMANY
		owner A SIL: GERMANY
		owner A VIE: AUSTRIA
		owner A BOH: none
		orders ITALY: A VIE R BOH
		process
		result R A VIE: void
		result R A VIE: disband
		notdislodged A VIE
		owner A BUD: AUSTRIA
		owner A TRI: none
		owner A MUN: GERMANY
		owner A SIL: GERMANY
		owner A VIE: AUSTRIA
		owner A BOH: none
	`},
	// 6.H.7. MULTIPLE RETREAT TO SAME AREA WILL DISBAND UNITS
	// There can only be one unit in an area.
	// Austria: A Budapest Supports A Trieste - Vienna
	// Austria: A Trieste - Vienna
	// Germany: A Munich Supports A Silesia - Bohemia
	// Germany: A Silesia - Bohemia
	// Italy: A Vienna Hold
	// Italy: A Bohemia Hold
	// If Italy orders the following for retreat:
	// Italy: A Bohemia - Tyrolia
	// Italy: A Vienna - Tyrolia
	// Both armies will be disbanded.
	{id: "6.H.7", title: "MULTIPLE RETREAT TO SAME AREA WILL DISBAND UNITS", script: `
		units AUSTRIA: A BUD, A TRI
		units GERMANY: A MUN, A SIL
		units ITALY: A VIE, A BOH
		orders AUSTRIA: A BUD S A TRI - VIE; A TRI - VIE
		orders GERMANY: A MUN S A SIL - BOH; A SIL - BOH
		orders ITALY: A VIE H; A BOH H
		process
		result M A BUD: ok
		result M A TRI: ok
		result M A MUN: ok
		result M A SIL: ok
		result M A VIE: dislodged
		result M A BOH: dislodged
		dislodged A VIE by TRI
		dislodged A BOH by SIL
		owner A BUD: AUSTRIA
		owner A TRI: none
		owner A MUN: GERMANY
		owner A SIL: none
		owner A VIE: AUSTRIA
		owner A BOH: GERMANY
		orders ITALY: A VIE R TYR; A BOH R TYR
		process
		result R A VIE: bounce
		result R A VIE: disband
		result R A BOH: bounce
		result R A BOH: disband
		notdislodged A VIE
		notdislodged A BOH
		owner A BUD: AUSTRIA
		owner A TRI: none
		owner A MUN: GERMANY
		owner A SIL: none
		owner A VIE: AUSTRIA
		owner A BOH: GERMANY
		owner A TYR: none
	`},
	// 6.H.8. TRIPLE RETREAT TO SAME AREA WILL DISBAND UNITS
	// When three units retreat to the same area, then all three units are disbanded.
	// England: A Liverpool - Edinburgh
	// England: F Yorkshire Supports A Liverpool - Edinburgh
	// England: F Norway Hold
	// Germany: A Kiel Supports A Ruhr - Holland
	// Germany: A Ruhr - Holland
	// Russia: F Edinburgh Hold
	// Russia: A Sweden Supports A Finland - Norway
	// Russia: A Finland - Norway
	// Russia: F Holland Hold
	// The fleets in Norway, Edinburgh and Holland are dislodged. If the following retreat orders are given:
	// England: F Norway - North Sea
	// Russia: F Edinburgh - North Sea
	// Russia: F Holland - North Sea
	// All three units are disbanded.
	{id: "6.H.8", title: "TRIPLE RETREAT TO SAME AREA WILL DISBAND UNITS", script: `
		units ENGLAND: A LVP, F YOR, F NWY
		units GERMANY: A KIE, A RUH
		units RUSSIA: F EDI, A SWE, A FIN, F HOL
		orders ENGLAND: A LVP - EDI; F YOR S A LVP - EDI; F NWY H
		orders GERMANY: A KIE S A RUH - HOL; A RUH - HOL
		orders RUSSIA: F EDI H; A SWE S A FIN - NWY; A FIN - NWY; F HOL H
		process
		result M A LVP: ok
		result M F YOR: ok
		result M F NWY: dislodged
		result M A KIE: ok
		result M A RUH: ok
		result M F EDI: dislodged
		result M A SWE: ok
		result M A FIN: ok
		result M F HOL: dislodged
		dislodged F NWY by FIN
		dislodged F EDI by LVP
		dislodged F HOL by RUH
		owner A LVP: none
		owner F YOR: ENGLAND
		owner A NWY: RUSSIA
		owner A KIE: GERMANY
		owner A RUH: none
		owner A EDI: ENGLAND
		owner A SWE: RUSSIA
		owner A FIN: none
		owner A HOL: GERMANY
		orders ENGLAND: F NWY R NTH
		orders RUSSIA: F EDI R NTH; F HOL R NTH
		process
		result R F NWY: bounce
		result R F NWY: disband
		result R F EDI: bounce
		result R F EDI: disband
		result R F HOL: bounce
		result R F HOL: disband
		notdislodged F NWY
		notdislodged F EDI
		notdislodged F HOL
		owner A LVP: none
		owner F YOR: ENGLAND
		owner A NWY: RUSSIA
		owner A KIE: GERMANY
		owner A RUH: none
		owner A EDI: ENGLAND
		owner A SWE: RUSSIA
		owner A FIN: none
		owner A HOL: GERMANY
		owner F NTH: none
	`},
	// 6.H.9. DISLODGED UNIT WILL NOT MAKE ATTACKERS AREA CONTESTED
	// An army can follow.
	// England: F Helgoland Bight - Kiel
	// England: F Denmark Supports F Helgoland Bight - Kiel
	// Germany: A Berlin - Prussia
	// Germany: F Kiel Hold
	// Germany: A Silesia Supports A Berlin - Prussia
	// Russia: A Prussia - Berlin
	// The fleet in Kiel can retreat to Berlin.
	{id: "6.H.9", title: "DISLODGED UNIT WILL NOT MAKE ATTACKERS AREA CONTESTED", script: `
		units ENGLAND: F HEL, F DEN
		units GERMANY: A BER, F KIE, A SIL
		units RUSSIA: A PRU
		orders ENGLAND: F HEL - KIE; F DEN S F HEL - KIE
		orders GERMANY: A BER - PRU; F KIE H; A SIL S A BER - PRU
		orders RUSSIA: A PRU - BER
		process
		result M F HEL: ok
		result M F DEN: ok
		result M A BER: ok
		result M F KIE: dislodged
		result M A SIL: ok
		result M A PRU: dislodged
		dislodged F KIE by HEL
		dislodged A PRU by BER
		owner F HEL: none
		owner F DEN: ENGLAND
		owner A BER: none
		owner F KIE: ENGLAND
		owner A SIL: GERMANY
		owner A PRU: GERMANY
		orders GERMANY: F KIE R BER
		process
		result R F KIE: ok
		result R A PRU: disband
		notdislodged F KIE
		notdislodged A PRU
		owner F HEL: none
		owner F DEN: ENGLAND
		owner F BER: GERMANY
		owner F KIE: ENGLAND
		owner A SIL: GERMANY
		owner A PRU: GERMANY
	`},
	// 6.H.10. NOT RETREATING TO ATTACKER DOES NOT MEAN CONTESTED
	// An army can not retreat to the place of the attacker. The easiest way to program that, is to mark that
	// place as "contested". However, this is not correct. Another army may retreat to that place.
	// England: A Kiel Hold
	// Germany: A Berlin - Kiel
	// Germany: A Munich Supports A Berlin - Kiel
	// Germany: A Prussia Hold
	// Russia: A Warsaw - Prussia
	// Russia: A Silesia Supports A Warsaw - Prussia
	// The armies in Kiel and Prussia are dislodged. The English army in Kiel can not retreat to Berlin, but
	// the army in Prussia can retreat to Berlin. Suppose the following retreat orders are given:
	// England: A Kiel - Berlin
	// Germany: A Prussia - Berlin
	// The English retreat to Berlin is illegal and fails (the unit is disbanded). The German retreat to Berlin is
	// successful and does not bounce on the English unit.
	{id: "6.H.10", title: "NOT RETREATING TO ATTACKER DOES NOT MEAN CONTESTED", script: `
		units ENGLAND: A KIE
		units GERMANY: A BER, A MUN, A PRU
		units RUSSIA: A WAR, A SIL
		orders ENGLAND: A KIE H
		orders GERMANY: A BER - KIE; A MUN S A BER - KIE; A PRU H
		orders RUSSIA: A WAR - PRU; A SIL S A WAR - PRU
		process
		result M A KIE: dislodged
		result M A BER: ok
		result M A MUN: ok
		result M A PRU: dislodged
		result M A WAR: ok
		result M A SIL: ok
		dislodged A KIE by BER
		dislodged A PRU by WAR
		owner A KIE: GERMANY
		owner A BER: none
		owner A MUN: GERMANY
		owner A PRU: RUSSIA
		owner A WAR: none
		owner A SIL: RUSSIA
		orders ENGLAND: A KIE R BER
		orders GERMANY: A PRU R BER
		process
		result R A KIE: void
		result R A PRU: ok
		notdislodged A KIE
		notdislodged A PRU
		owner A KIE: GERMANY
		owner A BER: GERMANY
		owner A MUN: GERMANY
		owner A PRU: RUSSIA
		owner A WAR: none
		owner A SIL: RUSSIA
	`},
	// 6.H.11. RETREAT WHEN DISLODGED BY ADJACENT CONVOY
	// If a unit is dislodged by an army via convoy, the question arises whether the dislodged army can retreat
	// to the original place of the convoyed army. This is only relevant in case the convoy was to an adjacent
	// place.
	// France: A Gascony - Marseilles via Convoy
	// France: A Burgundy Supports A Gascony - Marseilles
	// France: F Mid-Atlantic Ocean Convoys A Gascony - Marseilles
	// France: F Western Mediterranean Convoys A Gascony - Marseilles
	// France: F Gulf of Lyon Convoys A Gascony - Marseilles
	// Italy: A Marseilles Hold
	// If for issue 4.A.3 choice b or c has been taken, then the army in Gascony will not move with the use of
	// the convoy, because the army in Marseilles does not move in opposite direction. This immediately means that
	// the army in Marseilles may not move to Gascony when it dislodged by the army there.
	// For all other choices of issue 4.A.3, the army in Gascony takes a convoy and does not pass the border of
	// Gascony with Marseilles (it went a complete different direction). Now, the result depends on which rule
	// is used for retreating (see issue 4.A.5).
	// I prefer the 1982/2000 rule for convoying to adjacent places. This means that the move of Gascony happened
	// by convoy. Furthermore, I prefer that the army in Marseilles may retreat to Gascony.
	{id: "6.H.11", title: "RETREAT WHEN DISLODGED BY ADJACENT CONVOY", script: `
		units FRANCE: A GAS, A BUR, F MAO, F WES, F LYO
		units ITALY: A MAR
		orders FRANCE: A GAS - MAR VIA; A BUR S A GAS - MAR; F MAO C A GAS - MAR; F WES C A GAS - MAR; F LYO C A GAS - MAR
		orders ITALY: A MAR H
		process
		result M A GAS: ok
		result M A BUR: ok
		result M F MAO: ok
		result M F WES: ok
		result M F LYO: ok
		result M A MAR: dislodged
		dislodged A MAR by GAS
		owner A GAS: none
		owner A BUR: FRANCE
		owner F MAO: FRANCE
		owner F WES: FRANCE
		owner F LYO: FRANCE
		owner A MAR: FRANCE
		orders ITALY: A MAR R GAS
		process
		result R A MAR: ok
		notdislodged A MAR
		owner A GAS: ITALY
		owner A BUR: FRANCE
		owner F MAO: FRANCE
		owner F WES: FRANCE
		owner F LYO: FRANCE
		owner A MAR: FRANCE
	`},
	// 6.H.12. RETREAT WHEN DISLODGED BY ADJACENT CONVOY WHILE TRYING TO DO THE SAME
	// The previous test case can be made more extra ordinary, when both armies tried to move by convoy.
	// England: A Liverpool - Edinburgh via Convoy
	// England: F Irish Sea Convoys A Liverpool - Edinburgh
	// England: F English Channel Convoys A Liverpool - Edinburgh
	// England: F North Sea Convoys A Liverpool - Edinburgh
	// France: F Brest - English Channel
	// France: F Mid-Atlantic Ocean Supports F Brest - English Channel
	// Russia: A Edinburgh - Liverpool via Convoy
	// Russia: F Norwegian Sea Convoys A Edinburgh - Liverpool
	// Russia: F North Atlantic Ocean Convoys A Edinburgh - Liverpool
	// Russia: A Clyde Supports A Edinburgh - Liverpool
	// If for issue 4.A.3 choice c has been taken, then the army in Liverpool will not try to move by convoy,
	// because the convoy is disrupted. This has as consequence that army will just advance to Edinburgh by using
	// the land route. For all other choices of issue 4.A.3, both the army in Liverpool as in Edinburgh will try
	// to move by convoy. The army in Edinburgh will succeed. The army in Liverpool will fail, because of the
	// disrupted convoy. It is dislodged by the army of Edinburgh. Now, the question is whether the army in
	// Liverpool may retreat to Edinburgh. The result depends on which rule is used for retreating (see issue
	// 4.A.5). I prefer the 1982/2000 rule for convoying to adjacent places. This means that the army in Liverpool
	// tries the disrupted convoy. Furthermore, I prefer that the army in Liverpool may retreat to Edinburgh.
	{id: "6.H.12", title: "RETREAT WHEN DISLODGED BY ADJACENT CONVOY WHILE TRYING TO DO THE SAME", script: `
		units ENGLAND: A LVP, F IRI, F ENG, F NTH
		units FRANCE: F BRE, F MAO
		units RUSSIA: A EDI, F NWG, F NAO, A CLY
		orders ENGLAND: A LVP - EDI VIA; F IRI C A LVP - EDI; F ENG C A LVP - EDI; F NTH C A LVP - EDI
		orders FRANCE: F BRE - ENG; F MAO S F BRE - ENG
		orders RUSSIA: A EDI - LVP VIA; F NWG C A EDI - LVP; F NAO C A EDI - LVP; A CLY S A EDI - LVP
		process
		result M A LVP: dislodged
		result M F IRI: no_convoy
		result M F ENG: dislodged
		result M F NTH: no_convoy
		result M F BRE: ok
		result M F MAO: ok
		result M A EDI: ok
		result M F NWG: ok
		result M F NAO: ok
		result M A CLY: ok
		dislodged F ENG by BRE
		dislodged A LVP by EDI
		owner A LVP: RUSSIA
		owner F IRI: ENGLAND
		owner F ENG: FRANCE
		owner F NTH: ENGLAND
		owner F BRE: none
		owner F MAO: FRANCE
		owner A EDI: none
		owner F NWG: RUSSIA
		owner F NAO: RUSSIA
		owner A CLY: RUSSIA
		orders ENGLAND: A LVP R EDI; F ENG D
		process
		result R A LVP: ok
		result R F ENG: disband
		notdislodged A LVP
		notdislodged F ENG
		owner A LVP: RUSSIA
		owner F IRI: ENGLAND
		owner F ENG: FRANCE
		owner F NTH: ENGLAND
		owner F BRE: none
		owner F MAO: FRANCE
		owner A EDI: ENGLAND
		owner F NWG: RUSSIA
		owner F NAO: RUSSIA
		owner A CLY: RUSSIA
	`},
	// 6.H.13. NO RETREAT WITH CONVOY IN MAIN PHASE
	// The places where a unit may retreat to, must be calculated during the main phase. Care should be taken
	// that a convoy ordered in the main phase can not be used in the retreat phase.
	// England: A Picardy Hold
	// England: F English Channel Convoys A Picardy - London
	// France: A Paris - Picardy
	// France: A Brest Supports A Paris - Picardy
	// The dislodged army in Picardy can not retreat to London.
	{id: "6.H.13", title: "NO RETREAT WITH CONVOY IN MAIN PHASE", script: `
		units ENGLAND: A PIC, F ENG
		units FRANCE: A PAR, A BRE
		orders ENGLAND: A PIC H; F ENG C A PIC - LON
		orders FRANCE: A PAR - PIC; A BRE S A PAR - PIC
		process
		result M A PIC: dislodged
		result M F ENG: void
		result M A PAR: ok
		result M A BRE: ok
		dislodged A PIC by PAR
		owner A PIC: FRANCE
		owner F ENG: ENGLAND
		owner A PAR: none
		owner A BRE: FRANCE
		owner A LON: none
		orders ENGLAND: A PIC R LON
		process
		result R A PIC: void
		result R A PIC: disband
		notdislodged A PIC
		owner A PIC: FRANCE
		owner F ENG: ENGLAND
		owner A PAR: none
		owner A BRE: FRANCE
		owner A LON: none
	`},
	// 6.H.14. NO RETREAT WITH SUPPORT IN MAIN PHASE
	// Comparable to the previous test case, a support given in the main phase can not be used in the retreat
	// phase.
	// England: A Picardy Hold
	// England: F English Channel Supports A Picardy - Belgium
	// France: A Paris - Picardy
	// France: A Brest Supports A Paris - Picardy
	// France: A Burgundy Hold
	// Germany: A Munich Supports A Marseilles - Burgundy
	// Germany: A Marseilles - Burgundy
	// After the main phase the following retreat orders are given:
	// England: A Picardy - Belgium
	// France: A Burgundy - Belgium
	// Both the army in Picardy and Burgundy are disbanded.
	{id: "6.H.14", title: "NO RETREAT WITH SUPPORT IN MAIN PHASE", script: `
		units ENGLAND: A PIC, F ENG
		units FRANCE: A PAR, A BRE, A BUR
		units GERMANY: A MUN, A MAR
		orders ENGLAND: A PIC H; F ENG S A PIC - BEL
		orders FRANCE: A PAR - PIC; A BRE S A PAR - PIC; A BUR H
		orders GERMANY: A MUN S A MAR - BUR; A MAR - BUR
		process
		result M A PIC: dislodged
		result M F ENG: void
		result M A PAR: ok
		result M A BRE: ok
		result M A BUR: dislodged
		result M A MUN: ok
		result M A MAR: ok
		dislodged A PIC by PAR
		dislodged A BUR by MAR
		owner A PIC: FRANCE
		owner F ENG: ENGLAND
		owner A PAR: none
		owner A BRE: FRANCE
		owner A BUR: GERMANY
		owner A MUN: GERMANY
		owner A MAR: none
		orders ENGLAND: A PIC R BEL
		orders FRANCE: A BUR R BEL
		process
		result R A PIC: bounce
		result R A PIC: disband
		result R A BUR: bounce
		result R A BUR: disband
		notdislodged A PIC
		notdislodged A BUR
		owner A PIC: FRANCE
		owner F ENG: ENGLAND
		owner A PAR: none
		owner A BRE: FRANCE
		owner A BUR: GERMANY
		owner A MUN: GERMANY
		owner A MAR: none
	`},
	// 6.H.15. NO COASTAL CRAWL IN RETREAT
	// You can not go to the other coast from where the attacker came from.
	// England: F Portugal Hold
	// France: F Spain(sc) - Portugal
	// France: F Mid-Atlantic Ocean Supports F Spain(sc) - Portugal
	// The English fleet in Portugal is destroyed and can not retreat to Spain(nc).
	{id: "6.H.15", title: "NO COASTAL CRAWL IN RETREAT", script: `
		units ENGLAND: F POR
		units FRANCE: F SPA/SC, F MAO
		orders ENGLAND: F POR H
		orders FRANCE: F SPA/SC - POR; F MAO S F SPA/SC - POR
		process
		result M F POR: dislodged
		result M F SPA/SC: ok
		result M F MAO: ok
		dislodged F POR by SPA
		owner F POR: FRANCE
		owner F SPA: none
		owner F SPA/NC: none
		owner F SPA/SC: none
		owner F MAO: FRANCE
		# Portugal has no retreat (Spain is the attacker's province, on
		# either coast), so the fleet is disbanded at once and no retreats
		# phase is played, as in the reference library.
		result M F POR: disband
		notdislodged F POR
		owner F POR: FRANCE
		owner F SPA: none
		owner F SPA/NC: none
		owner F SPA/SC: none
		owner F MAO: FRANCE
	`},
	// 6.H.16. CONTESTED FOR BOTH COASTS
	// If a coast is contested, the other is not available for retreat.
	// France: F Mid-Atlantic Ocean - Spain(nc)
	// France: F Gascony - Spain(nc)
	// France: F Western Mediterranean Hold
	// Italy: F Tunis Supports F Tyrrhenian Sea - Western Mediterranean
	// Italy: F Tyrrhenian Sea - Western Mediterranean
	// The French fleet in the Western Mediterranean can not retreat to Spain(sc).
	{id: "6.H.16", title: "CONTESTED FOR BOTH COASTS", script: `
		units FRANCE: F MAO, F GAS, F WES
		units ITALY: F TUN, F TYS
		orders FRANCE: F MAO - SPA/NC; F GAS - SPA/NC; F WES H
		orders ITALY: F TUN S F TYS - WES; F TYS - WES
		process
		result M F MAO: bounce
		result M F GAS: bounce
		result M F WES: dislodged
		result M F TUN: ok
		result M F TYS: ok
		dislodged F WES by TYS
		owner F MAO: FRANCE
		owner F GAS: FRANCE
		owner F WES: ITALY
		owner F TUN: ITALY
		owner F TYS: none
		owner F SPA: none
		owner F SPA/NC: none
		owner F SPA/SC: none
		orders FRANCE: F WES R SPA/SC
		process
		result R F WES: void
		result R F WES: disband
		notdislodged F WES
		owner F MAO: FRANCE
		owner F GAS: FRANCE
		owner F WES: ITALY
		owner F TUN: ITALY
		owner F TYS: none
		owner F SPA: none
		owner F SPA/NC: none
		owner F SPA/SC: none
	`},
	// 6.I.1. TOO MANY BUILD ORDERS
	// Check how program reacts when someone orders too many builds.
	// Germany may build one:
	// Germany: Build A Warsaw
	// Germany: Build A Kiel
	// Germany: Build A Munich
	// Program should not build all three, but handle it in an other way. See issue 4.D.4.
	// I prefer that the build orders are just handled one by one until all allowed units are build. According
	// to this preference, the build in Warsaw fails, the build in Kiel succeeds and the build in Munich fails.
	{id: "6.I.1", title: "TOO MANY BUILD ORDERS", script: `
		clearcenters
		centers GERMANY: KIE, MUN, WAR
		units GERMANY: F NAO, F MAO
		phase W1901A
		orders GERMANY: A WAR B; A KIE B; A MUN B
		process
		result A A WAR: void
		result A A KIE: ok
		result A A MUN: void
		owner A WAR: none
		owner A KIE: GERMANY
		owner A MUN: none
	`},
	// 6.I.2. FLEETS CAN NOT BE BUILD IN LAND AREAS
	// Physical this is possible, but it is still not allowed.
	// Russia has one build and Moscow is empty.
	// Russia: Build F Moscow
	// See issue 4.C.4. Some game masters will change the order and build an army in Moscow.
	// I prefer that the build fails.
	{id: "6.I.2", title: "FLEETS CAN NOT BE BUILD IN LAND AREAS", script: `
		clearcenters
		centers RUSSIA: MOS
		phase W1901A
		orders RUSSIA: F MOS B
		process
		result A F MOS: void
		owner F MOS: none
	`},
	// 6.I.3. SUPPLY CENTER MUST BE EMPTY FOR BUILDING
	// You can't have two units in a sector. So, you can't build when there is a unit in the supply center.
	// Germany may build a unit but has an army in Berlin. Germany orders the following:
	// Germany: Build A Berlin
	// Build fails.
	{id: "6.I.3", title: "SUPPLY CENTER MUST BE EMPTY FOR BUILDING", script: `
		clearcenters
		centers GERMANY: MUN, BER
		units GERMANY: A BER
		phase W1901A
		orders GERMANY: A BER B
		process
		result A A BER: void
		owner A BER: GERMANY
	`},
	// 6.I.4. BOTH COASTS MUST BE EMPTY FOR BUILDING
	// If a sector is occupied on one coast, the other coast can not be used for building.
	// Russia may build a unit and has a fleet in St Petersburg(sc). Russia orders the following:
	// Russia: Build A St Petersburg(nc)
	// Build fails.
	{id: "6.I.4", title: "BOTH COASTS MUST BE EMPTY FOR BUILDING", script: `
		clearcenters
		centers RUSSIA: STP, MOS
		units RUSSIA: F STP/SC
		phase W1901A
		orders RUSSIA: F STP/NC B
		process
		result A F STP/NC: void
		owner F STP: RUSSIA
		owner F STP/NC: none
		owner F STP/SC: RUSSIA
	`},
	// 6.I.5. BUILDING IN HOME SUPPLY CENTER THAT IS NOT OWNED
	// Building a unit is only allowed when supply center is a home supply center and is owned. If not owned,
	// build fails.
	// Russia captured Berlin in Fall. Left Berlin. Germany can not build in Berlin.
	// Germany: Build A Berlin
	// Build fails.
	{id: "6.I.5", title: "BUILDING IN HOME SUPPLY CENTER THAT IS NOT OWNED", script: `
		clearcenters
		centers GERMANY: MUN
		centers RUSSIA: BER
		phase W1901A
		orders GERMANY: A BER B
		process
		result A A BER: void
		owner A BER: none
	`},
	// 6.I.6. BUILDING IN OWNED SUPPLY CENTER THAT IS NOT A HOME SUPPLY CENTER
	// Building a unit is only allowed when supply center is a home supply center and is owned. If it is not
	// a home supply center, the build fails.
	// Germany owns Warsaw, Warsaw is empty and Germany may build one unit.
	// Germany:
	// Build A Warsaw
	// Build fails.
	{id: "6.I.6", title: "BUILDING IN OWNED SUPPLY CENTER THAT IS NOT A HOME SUPPLY CENTER", script: `
		clearcenters
		centers GERMANY: MUN, WAR
		units GERMANY: A MUN
		phase W1901A
		orders GERMANY: A WAR B
		process
		result A A WAR: void
		owner A WAR: none
	`},
	// 6.I.7. ONLY ONE BUILD IN A HOME SUPPLY CENTER
	// If you may build two units, you can still only build one in a supply center.
	// Russia owns Moscow, Moscow is empty and Russia may build two units.
	// Russia: Build A Moscow
	// Russia: Build A Moscow
	// The second build should fail.
	{id: "6.I.7", title: "ONLY ONE BUILD IN A HOME SUPPLY CENTER", script: `
		clearcenters
		centers RUSSIA: STP, MOS
		phase W1901A
		orders RUSSIA: A MOS B; A MOS B
		process
		result A A MOS: void ok
		owner A MOS: RUSSIA
	`},
	// 6.J.1. TOO MANY DISBAND ORDERS
	// Check how program reacts when someone orders too many disbands.
	// France has to disband one and has an army in Paris and Picardy.
	// France: Remove F Gulf of Lyon
	// France: Remove A Picardy
	// France: Remove A Paris
	// Program should not disband both Paris and Picardy, but should handle it in a different way. See also
	// issue 4.D.6. I prefer that the disband orders are handled one by one. According to the preference, the
	// removal of the fleet in the Gulf of Lyon fails (no fleet), the removal of the army in Picardy succeeds and
	// the removal of the army in Paris fails (too many disbands).
	{id: "6.J.1", title: "TOO MANY DISBAND ORDERS", script: `
		clearcenters
		centers FRANCE: PAR
		units FRANCE: A PIC, A PAR
		phase W1901A
		orders FRANCE: F LYO D; A PIC D; A PAR D
		process
		result A F LYO: void
		result A A PIC: ok
		result A A PAR: void
		owner F LYO: none
		owner A PIC: none
		owner A PAR: FRANCE
	`},
	// 6.J.2. REMOVING THE SAME UNIT TWICE
	// If you have to remove two units, you can always try to trick the computer by removing the same unit twice.
	// France has to disband two and has an army in Paris.
	// France: Remove A Paris
	// France: Remove A Paris
	// Program should remove army in Paris and remove another unit by using the civil disorder rules.
	// (Set-up here: France owns Paris and has A Paris, A Picardy and F North Atlantic Ocean. By the civil
	// disorder rule the fleet, three moves from Paris, goes; the army in Picardy, one move away, stays.)
	{id: "6.J.2", title: "REMOVING THE SAME UNIT TWICE", script: `
		clearcenters
		centers FRANCE: PAR
		units FRANCE: A PIC, A PAR, F NAO
		phase W1901A
		orders FRANCE: A PAR D; A PAR D
		process
		result A A PAR: ok void
		owner A PAR: none
		owner A PIC: FRANCE
		owner F NAO: none
	`},
	// 6.J.3. CIVIL DISORDER TWO ARMIES WITH DIFFERENT DISTANCE
	// When a player forgets to disband a unit, the civil disorder rules must be applied. When two armies
	// have different distance from the home supply centers, then the army with the greatest distance has to
	// be removed.
	// Russia has to remove one.
	// Russia owns supply center St Petersburg.
	// Russia has armies in Livonia and Sweden.
	// Russia does not order a disband.
	// The army in Sweden is removed.
	{id: "6.J.3", title: "CIVIL DISORDER TWO ARMIES WITH DIFFERENT DISTANCE", script: `
		clearcenters
		centers RUSSIA: STP
		units RUSSIA: A LVN, A SWE
		phase W1901A
		process
		result A A SWE: disband
		owner A LVN: RUSSIA
		owner A SWE: none
	`},
	// 6.J.4. CIVIL DISORDER TWO ARMIES WITH EQUAL DISTANCE
	// If two armies have equal distance from the home supply centers, then alphabetical order is used.
	// Russia has to remove one.
	// Russia owns Moscow.
	// Russia has armies in Livonia and Ukraine.
	// Russia does not order a disband.
	// Both armies have distance one. The Livonia army is removed, because it appears first in alphabetical
	// order.
	{id: "6.J.4", title: "CIVIL DISORDER TWO ARMIES WITH EQUAL DISTANCE", script: `
		clearcenters
		centers RUSSIA: MOS
		units RUSSIA: A LVN, A UKR
		phase W1901A
		process
		owner A LVN: none
		owner A UKR: RUSSIA
	`},
	// 6.J.5. CIVIL DISORDER TWO FLEETS WITH DIFFERENT DISTANCE
	// If two fleets have different distance from the home supply centers, then the fleet with the greatest
	// distance has to be removed.
	// Russia has to remove one.
	// Russia owns St Petersburg.
	// Russia has fleets in Skagerrak and Berlin.
	// Russia does not order a disband.
	// The distance of the fleet in Berlin is three, the fleet in Skagerrak has distance two (via Norway).
	// So, the fleet in Berlin has to be removed.
	{id: "6.J.5", title: "CIVIL DISORDER TWO FLEETS WITH DIFFERENT DISTANCE", script: `
		clearcenters
		centers RUSSIA: STP
		units RUSSIA: F SKA, F BER
		phase W1901A
		process
		owner F SKA: RUSSIA
		owner F BER: none
	`},
	// 6.J.6. CIVIL DISORDER TWO FLEETS WITH EQUAL DISTANCE
	// Alphabetical order is used, when two fleets have equal distance to the home supply centers.
	// Russia has to remove one.
	// Russia owns Munich.
	// Russia has fleets in Gulf of Bothnia and North Sea.
	// Russia does not order a disband.
	// Note, that in 2023 rules distance is calculated to owned supply centers (instead of home supply
	// centers). Also, for distance calculations both armies and fleets can take both land and sea. Both
	// distances are three. The fleet in Gulf of Bothnia is removed, because it appears first in alphabetical
	// order.
	{id: "6.J.6", title: "CIVIL DISORDER TWO FLEETS WITH EQUAL DISTANCE", script: `
		clearcenters
		centers RUSSIA: MUN
		units RUSSIA: F BOT, F NTH
		phase W1901A
		process
		owner F BOT: none
		owner F NTH: RUSSIA
	`},
	// 6.J.7. CIVIL DISORDER TWO FLEETS AND ARMY WITH EQUAL DISTANCE
	// In removal, the fleet has precedence over an army. In this case there are two fleets, to make the test
	// more complex.
	// Russia has to remove one.
	// Russia owns St Petersburg and Warsaw.
	// Russia has an army in Bohemia, a fleet in Skagerrak and a fleet in the North Sea.
	// Russia does not order a disband.
	// The distances of the army and the fleets to one of the owned supply centers are two. The fleets take
	// precedence above the army (although the army is alphabetical first). The fleet in the North Sea is
	// alphabetical first, compared to Skagerrak and has to be removed.
	{id: "6.J.7", title: "CIVIL DISORDER TWO FLEETS AND ARMY WITH EQUAL DISTANCE", script: `
		clearcenters
		centers RUSSIA: STP, WAR
		units RUSSIA: A BOH, F SKA, F NTH
		phase W1901A
		process
		owner A BOH: RUSSIA
		owner F SKA: RUSSIA
		owner F NTH: none
	`},
	// 6.J.8. CIVIL DISORDER A FLEET WITH SHORTER DISTANCE THEN THE ARMY
	// If the fleet has a shorter distance than the army, the army is removed.
	// Russia has to remove one.
	// Russia has an army in Tyrolia and a fleet in the Baltic Sea.
	// Russia owns Warsaw.
	// Russia does not order a disband.
	// The distance of the army to Warsaw is three while the distance of the fleet is two. So, the army is
	// removed.
	{id: "6.J.8", title: "CIVIL DISORDER A FLEET WITH SHORTER DISTANCE THEN THE ARMY", script: `
		clearcenters
		centers RUSSIA: WAR
		units RUSSIA: A TYR, F BAL
		phase W1901A
		process
		owner A TYR: none
		owner F BAL: RUSSIA
	`},
	// 6.J.9. CIVIL DISORDER MUST BE COUNTED FROM BOTH COASTS
	// Distance must be calculated from both coasts.
	// Russia has to remove one.
	// Russia owns St Petersburg and Sevastopol.
	// Russia has armies in Greece and Sevastopol and a fleet in the Baltic Sea.
	// Russia does not order a disband.
	// The distance of the fleet to St Petersburg(nc) is three but to St Petersburg(sc) is two. So, the army in
	// Greece must be removed.
	// Russia has to remove one.
	// Russia owns St Petersburg and Sevastopol.
	// Russia has armies in Greece and Sevastopol and a fleet in Skagerrak.
	// Russia does not order a disband.
	// The distance of the fleet to St Petersburg(sc) is three but to St Petersburg(nc) is two. So, the army in
	// Greece must be removed.
	{id: "6.J.9", title: "CIVIL DISORDER MUST BE COUNTED FROM BOTH COASTS", script: `
		clearcenters
		centers RUSSIA: STP, SEV
		units RUSSIA: A GRE, A SEV, F BAL
		phase W1901A
		process
		owner A GRE: none
		owner A SEV: RUSSIA
		owner F BAL: RUSSIA
	`},
	{id: "6.J.9/skagerrak", title: "CIVIL DISORDER MUST BE COUNTED FROM BOTH COASTS (SECOND SET-UP)", script: `
		clearcenters
		centers RUSSIA: STP, SEV
		units RUSSIA: A GRE, A SEV, F SKA
		phase W1901A
		process
		owner A GRE: none
		owner A SEV: RUSSIA
		owner F SKA: RUSSIA
	`},
	// 6.J.10. CIVIL DISORDER COUNTING CONVOYING DISTANCE
	// For calculating the distance for armies all areas must be considered.
	// Italy has to remove one.
	// Italy owns Naples.
	// Italy has armies in Greece and Piedmont.
	// Italy does not order a disband.
	// The distance from Greece to owned supply center is five over land. However, for distance calculation it
	// can go over water and arrive in two steps. The army in Piedmont has to be removed.
	{id: "6.J.10", title: "CIVIL DISORDER COUNTING CONVOYING DISTANCE", script: `
		clearcenters
		centers ITALY: NAP
		units ITALY: A GRE, A PIE
		phase W1901A
		process
		owner A GRE: ITALY
		owner A PIE: none
	`},
	// 6.J.11. DISTANCE TO OWNED SUPPLY CENTER
	// The 2023 rules say that distance must be calculated to owned supply center instead of home supply center
	// (as it was in the older rulebooks).
	// Italy has to remove one.
	// Italy owns Warsaw.
	// Italy has armies in Warsaw and Tuscany.
	// Italy does not order a disband.
	// The army in Tuscany is removed and Italy will continue defending its supply center in Warsaw. Under older
	// rulebooks the army in Tuscany was kept.
	{id: "6.J.11", title: "DISTANCE TO OWNED SUPPLY CENTER", script: `
		clearcenters
		centers ITALY: WAR
		units ITALY: A WAR, A TUS
		phase W1901A
		process
		owner A WAR: ITALY
		owner A TUS: none
	`},
}
