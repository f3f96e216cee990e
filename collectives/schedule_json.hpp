// collectives/schedule_json.hpp — schedules saved to and loaded from JSON, so any schedule
// can be attached to a bug report, drawn elsewhere or fed back to an engine. Loading
// validates everything (types, ranges, dependency order) and reports the first problem as
// one line; a schedule that loads is structurally valid (checker.hpp, part 1).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "collectives/schedule.hpp"

namespace collsim {

inline constexpr std::string_view kScheduleFormat = "collsim-schedule";
inline constexpr int kScheduleFormatVersion = 1;

nlohmann::json schedule_to_json(const Schedule& schedule);
Schedule schedule_from_json(const nlohmann::json& json);  // throws Error

// The schedule in a JSON text; `origin` names it in errors (a file name). Throws Error.
Schedule parse_schedule(const std::string& text, const std::string& origin);

void save_schedule(const Schedule& schedule, const std::filesystem::path& path);
Schedule load_schedule(const std::filesystem::path& path);  // throws Error naming the file

}  // namespace collsim
