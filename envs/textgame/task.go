package textgame

import (
	"fmt"
	"strings"
)

// Place is a location of the cave that a milestone names, recognised in
// the game's output by its long description (the first time, or after
// "look") or its short one (on later visits).
type Place struct {
	// Name is the place's name, as in the game's short description.
	Name string
	// Long is the start of the game's long description.
	Long string
	// Short is the game's short description line.
	Short string
}

// seenIn reports whether obs describes the player at the place.
func (p Place) seenIn(obs string) bool {
	if strings.Contains(obs, p.Long) {
		return true
	}
	for _, line := range strings.Split(obs, "\n") {
		if strings.TrimSpace(line) == p.Short {
			return true
		}
	}
	return false
}

// The places that milestones name, in the order of the path from the road
// to the nugget of gold.
var (
	PlaceBuilding   = Place{"building", "You are inside a building, a well house for a large spring.", "You're inside building."}
	PlaceGrate      = Place{"outside grate", "You are in a 20-foot depression floored with bare dirt.", "You're outside grate."}
	PlaceBelowGrate = Place{"below the grate", "You are in a small chamber beneath a 3x3 steel grate", "You're below the grate."}
	PlaceDebris     = Place{"debris room", "You are in a debris room filled with stuff washed in from the surface.", "You're in debris room."}
	PlaceBird       = Place{"bird chamber", "You are in a splendid chamber thirty feet high.", "You're in bird chamber."}
	PlaceHallMists  = Place{"Hall of Mists", "You are at one end of a vast hall stretching forward out of sight to", "You're in Hall of Mists."}
	PlaceNugget     = Place{"nugget-of-gold room", "This is a low room with a crude note on the wall.", "You're in nugget-of-gold room."}
)

// The expert's route from the road, in legs: each task's solution is a
// prefix of it.
var (
	routeBuilding   = []string{"in"}
	routeGrate      = []string{"s", "s", "s"}
	routeBelowGrate = []string{"in", "take keys", "out", "s", "s", "s", "unlock grate", "d"}
	routeDebris     = []string{"in", "take lamp", "take keys", "out", "s", "s", "s", "unlock grate", "d", "w", "light lamp", "w"}
	routeBird       = append(append([]string(nil), routeDebris...), "w", "w")
	routeHall       = append(append([]string(nil), routeBird...), "w", "d")
	routeNugget     = append(append([]string(nil), routeHall...), "s")
)

// taskSpec is one task before seeding: a goal and the expert's commands.
type taskSpec struct {
	goal        string
	milestone   *Place // reach this place; nil for a score task
	scoreTarget int    // points to gain over the start, for a score task
	solution    []string
}

// specs lists the tasks of each split, in id order.
var specs = map[string][]taskSpec{
	SplitTrain: {
		{goal: "Enter the small brick building.", milestone: &PlaceBuilding, solution: routeBuilding},
		{goal: "Find the steel grate in the depression south of the road.", milestone: &PlaceGrate, solution: routeGrate},
		{goal: "Get through the steel grate into the chamber below it.", milestone: &PlaceBelowGrate, solution: routeBelowGrate},
		{goal: "Reach the debris room inside the cave.", milestone: &PlaceDebris, solution: routeDebris},
		{goal: "Score 25 points by getting deep into the cave.", scoreTarget: 25, solution: routeHall},
	},
	SplitVal: {
		{goal: "Reach the bird chamber inside the cave.", milestone: &PlaceBird, solution: routeBird},
		{goal: "Score 27 points: get deep into the cave and find a treasure.", scoreTarget: 27, solution: routeNugget},
	},
	SplitTest: {
		{goal: "Reach the Hall of Mists.", milestone: &PlaceHallMists, solution: routeHall},
		{goal: "Reach the room with the nugget of gold.", milestone: &PlaceNugget, solution: routeNugget},
	},
}

// task is one seeded task.
type task struct {
	info TaskInfo
	spec taskSpec
}

// TaskInfo describes one task.
type TaskInfo struct {
	ID    string
	Split string
	// Seed is the number the game's random generator is set to ("seed N")
	// before the first command.
	Seed int32
	// Goal is the task's instruction.
	Goal string
	// Milestone is the place to reach, or "" for a score task.
	Milestone string
	// ScoreTarget is the number of points to gain over the starting score
	// of a score task; 0 for a milestone task.
	ScoreTarget int
	// ExpertSteps is the length of the expert's solution.
	ExpertSteps int
}

// buildTasks seeds the specs: task i of a split gets a game seed drawn from
// (seed, split, i).
func buildTasks(seed int64) (map[string]*task, map[string][]string) {
	tasks := map[string]*task{}
	splits := map[string][]string{}
	for code, split := range []string{SplitTrain, SplitVal, SplitTest} {
		for i, sp := range specs[split] {
			id := fmt.Sprintf("advent-%s-%04d", split, i)
			t := &task{spec: sp, info: TaskInfo{
				ID: id, Split: split, Seed: gameSeed(seed, code, i), Goal: sp.goal,
				ScoreTarget: sp.scoreTarget, ExpertSteps: len(sp.solution),
			}}
			if sp.milestone != nil {
				t.info.Milestone = sp.milestone.Name
			}
			tasks[id] = t
			splits[split] = append(splits[split], id)
		}
	}
	return tasks, splits
}

// gameSeed mixes (seed, split, index) with SplitMix64 into an int32 in
// [1, 2^31-1), the range of the game's seed command; never 0, which
// startInput reads as "no seed".
func gameSeed(seed int64, split, index int) int32 {
	z := uint64(seed) ^ uint64(split+1)<<32 ^ uint64(index+1)
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int32(z%(1<<31-2)) + 1
}
