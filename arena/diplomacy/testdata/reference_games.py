"""Writes reference_games.json (gzip it to reference_games.json.gz).

Plays six seeded games of 60 phases with the Python diplomacy library
(github.com/diplomacy/diplomacy v1.1.2, the engine the reference
AgentEvolver drives), choosing for every orderable location a uniformly
random order among the library's possible orders, and records each phase's
position, orders and resulting position (and, for the first game's first
six phases, the possible orders). reference_test.go replays them.

Run with the library on PYTHONPATH:  python3 reference_games.py out.json
"""
import json, random, sys
from diplomacy import Game
out = {"games": []}
for seed in range(6):
    rng = random.Random(seed)
    g = Game()
    phases = []
    n = 0
    while not g.is_game_done and n < 60:
        n += 1
        ph = g.get_current_phase()
        state = g.get_state()
        poss = g.get_all_possible_orders()
        rec = {"phase": ph,
               "units": {p: sorted(u) for p, u in state["units"].items() if u},
               "centers": {p: sorted(c) for p, c in state["centers"].items() if c},
               "retreats": {p: {u: sorted(r) for u, r in rs.items()} for p, rs in state["retreats"].items() if rs},
               "orders": {}}
        if seed == 0 and n <= 6:
            rec["possible"] = {l: sorted(o) for l, o in poss.items() if o}
        for p in sorted(g.powers):
            locs = g.get_orderable_locations(p)
            ords = []
            for l in sorted(locs):
                # A move "via convoy" to an adjacent province falls back to
                # the land route in this library (DATC 2.4) but not under
                # DATC 3.0 (6.G.8): leave such orders out of the draw.
                cand = [o for o in sorted(poss.get(l, [])) if not (o.endswith(' VIA') and g.map.abuts('A', o.split()[1], '-', o.split()[3]))]
                if cand:
                    ords.append(rng.choice(cand))
            # in adjustment phases keep only as many as allowed
            rec["orders"][p] = ords
            g.set_orders(p, ords)
        g.process()
        st = g.get_state()
        rec["after_units"] = {p: sorted(u) for p, u in st["units"].items() if u}
        rec["after_centers"] = {p: sorted(c) for p, c in st["centers"].items() if c}
        rec["next_phase"] = g.get_current_phase()
        phases.append(rec)
    out["games"].append({"seed": seed, "phases": phases})
json.dump(out, open(sys.argv[1], "w"), indent=0, sort_keys=True)
