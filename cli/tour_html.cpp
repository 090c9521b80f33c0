#include "locksim/cli/tour_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "locksim/cli/entries.hpp"
#include "locksim/cli/program_name.hpp"
#include "locksim/cli/tour_wire.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/render/sequence.hpp"
#include "locksim/render/svg.hpp"

namespace locksim::cli {

namespace {

using render::xml_escape;

constexpr std::string_view kStyle = R"(
body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1em;color:#222}
h1{font-size:1.6em} h2{font-size:1.25em;margin-top:2.5em;border-top:1px solid #ddd;padding-top:1em}
h3.part{font-size:1.4em;margin-top:2em;color:#444}
.id{color:#c0392b;font-weight:bold} .sentence{font-size:1.1em;color:#c0392b}
pre.diff{background:#f6f8fa;padding:.5em;overflow-x:auto} .del{color:#b31d28} .add{color:#22863a}
.figure{overflow-x:auto;border:1px solid #eee;padding:4px}
.steps{margin:.5em 0} .steps button{font-size:1em;margin-right:.3em}
.now{font-family:monospace;background:#fffbe6;padding:2px 6px}
[data-step].later{opacity:.08}
code{background:#f6f8fa;padding:1px 4px}
.variation{display:none} .variation.shown{display:block}
.problem{color:#fff;background:#c0392b;padding:2px 6px}
body.focus section.chapter{display:none} body.focus section.chapter.focused{display:block}
body.focus .intro,body.focus h3.part{display:none}
)";

// The step-through and the "try it" control. The address may name a chapter and
// its state (#F07/try=1/step=3): the page opens there, with only that chapter shown.
constexpr std::string_view kScript = R"(
function figureOf(section){return section.querySelector('.variation.shown')}
function setStep(section,step){
  const fig=figureOf(section); if(!fig) return;
  const total=+fig.dataset.steps; step=Math.max(0,Math.min(total,step));
  fig.dataset.stepNow=step; section.dataset.stepNow=step;
  fig.querySelectorAll('[data-step]').forEach(e=>{e.classList.toggle('later',step>0&&+e.dataset.step>step)});
  const texts=JSON.parse(fig.dataset.texts);
  section.querySelector('.now').textContent=step==0?'(the whole run: press next to step through it)':
    ('step '+step+' of '+total+': '+texts[step-1]);
}
function setTry(section,index){
  section.querySelectorAll('.variation').forEach((v,i)=>v.classList.toggle('shown',i==index));
  const sel=section.querySelector('select'); if(sel) sel.value=index;
  setStep(section,0);
}
function openHash(hash){
  const parts=hash.replace(/^#/,'').split('/'); if(!parts[0]) return;
  const section=document.getElementById(parts[0]); if(!section) return;
  document.body.classList.add('focus'); section.classList.add('focused');
  let step=0;
  for(const p of parts.slice(1)){const [k,v]=p.split('=');
    if(k=='try') setTry(section,+v); if(k=='step') step=+v;}
  setStep(section,step);
}
document.querySelectorAll('section.chapter').forEach(s=>{
  s.querySelector('.prev').onclick=()=>setStep(s,+(s.dataset.stepNow||0)-1);
  s.querySelector('.next').onclick=()=>setStep(s,+(s.dataset.stepNow||0)+1);
  s.querySelector('.all').onclick=()=>setStep(s,0);
  const sel=s.querySelector('select'); if(sel) sel.onchange=()=>setTry(s,+sel.value);
  setStep(s,0);
});
openHash(location.hash);
)";

std::string js_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c < 0x20)
      out += fmt::format("\\u{:04x}", c);
    else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

// One drawn run: its diagram, the texts of its steps, and what it came to.
std::string figure(const LessonRun& run, const props::CatalogueEntry& entry, const std::string& title,
                   const std::string& choice, bool shown) {
  render::SequenceOptions so;
  so.steps = true;
  const render::SequenceLayout layout = render::layout_sequence(lesson_timeline(run, entry, title), so);
  std::string texts = "[";
  for (size_t i = 0; i < layout.step_text.size(); ++i) texts += (i ? "," : "") + js_string(layout.step_text[i]);
  texts += "]";
  const std::string outcome =
      run.violation ? run.violation->sentence
                    : fmt::format("{} holds in this run.", props::to_string(entry.property));
  return fmt::format(
      "<div class=\"variation{}\" data-choice=\"{}\" data-steps=\"{}\" data-texts=\"{}\">\n"
      "<p class=\"sentence\">{}</p>\n<div class=\"figure\">{}</div>\n"
      "<p>Replay: <code>{} replay {}</code></p>\n</div>\n",
      shown ? " shown" : "", xml_escape(choice), layout.steps, xml_escape(texts), xml_escape(outcome), layout.svg,
      xml_escape(program_name()), xml_escape(shell_quote(props::to_string(run.scenario))));
}

// The version in a line beside the one before it, then the commands one client sends, as a diff.
std::string what_changed(const lock::Algorithm& algorithm, const lock::Algorithm* previous) {
  std::string out = "<p><b>What changed</b>:</p>\n<pre class=\"diff\">";
  if (previous) out += fmt::format("<span class=\"del\">- {}: {}</span>\n", xml_escape(previous->id), xml_escape(previous->summary));
  out += fmt::format("<span class=\"add\">+ {}: {}</span></pre>\n", xml_escape(algorithm.id), xml_escape(algorithm.summary));
  const std::vector<std::string> now = wire_commands(algorithm);
  if (now.empty()) return out;
  out += fmt::format("<p>On the wire, one client locking, working and unlocking{}:</p>\n<pre class=\"diff wire\">",
                     previous ? fmt::format(" (against {})", xml_escape(previous->id)) : "");
  for (const DiffLine& d : diff_lines(previous ? wire_commands(*previous) : std::vector<std::string>{}, now)) {
    const char* css = d.mark == '-' ? "del" : d.mark == '+' ? "add" : "same";
    out += fmt::format("<span class=\"{}\">{} {}</span>\n", css, d.mark, xml_escape(d.text));
  }
  return out + "</pre>\n";
}

std::string chapter(const Lesson& lesson, const props::CatalogueEntry& entry, const lock::Algorithm& algorithm,
                    const lock::Algorithm* previous, const TimedOutcome& found, bool& all_as_told) {
  std::string out = fmt::format("<section class=\"chapter\" id=\"{}\">\n<h2><span class=\"id\">{}</span> {} &mdash; {}</h2>\n",
                                xml_escape(entry.id), xml_escape(entry.id), xml_escape(algorithm.id),
                                xml_escape(lesson.title));
  out += what_changed(algorithm, previous);
  LessonRun told = replay_lesson(lesson, entry);
  out += fmt::format("<p><b>The scenario</b>: {}</p>\n", xml_escape(lesson.setup));
  if (!told.as_told()) {
    all_as_told = false;
    std::string problems;
    for (const std::string& p : told.problems) problems += (problems.empty() ? "" : "; ") + p;
    out += fmt::format("<p class=\"problem\">This scenario does not fail as told: {}</p>\n", xml_escape(problems));
  }
  out += "<div class=\"steps\"><button class=\"prev\">&#9664; back</button><button class=\"next\">next &#9654;</button>"
         "<button class=\"all\">whole run</button> <span class=\"now\"></span></div>\n";
  std::string variations = figure(told, entry, std::string(lesson.title), "as told", true);
  std::string options = "<option value=\"0\">as told</option>";
  int index = 1;
  for (std::string_view word : lesson.knob_values) {
    std::optional<LessonRun> varied = replay_variation(lesson, entry, word);
    if (!varied) continue;
    variations += figure(*varied, entry, std::string(lesson.title) + " (" + std::string(word) + ")", std::string(word), false);
    options += fmt::format("<option value=\"{}\">{}</option>", index++, xml_escape(word));
  }
  if (index > 1)
    out += fmt::format("<p><b>Try it</b> ({}): <select>{}</select> each choice is a run made with the page.</p>\n",
                       xml_escape(lesson.knob), options);
  out += variations;
  if (told.violation)
    out += fmt::format("<p><b>Why</b>: {}.</p>\n", xml_escape(props::describe(told.violation->cause)));
  if (const props::EntryOutcome& r = found.outcome; r.counterexample)
    out += fmt::format("<p><b>Found without help</b>: the search broke {} in run {} and shrank it to <code>{}</code>.</p>\n",
                       props::to_string(r.counterexample->violation.property), r.counterexample->run,
                       xml_escape(replay_command(r.counterexample->shrunk)));
  else
    out += fmt::format("<p class=\"problem\">Not found by the search: {}</p>\n", xml_escape(found.outcome.outcome)),
        all_as_told = false;
  if (!entry.fix.empty())
    out += fmt::format("<p><b>The fix</b>: {}{} &mdash; {}</p>\n", xml_escape(entry.fix),
                       entry.fix_params.empty() ? "" : " with " + xml_escape(entry.fix_params),
                       xml_escape(found.outcome.fix_outcome));
  return out + "</section>\n";
}

constexpr std::string_view kPartTitles[] = {"Part 1. The lock in Redis, version by version",
                                            "Part 2. Variants beside the main line",
                                            "Appendix. The same lock in a relational database, for contrast"};

}  // namespace

render::Timeline lesson_timeline(const LessonRun& run, const props::CatalogueEntry& entry, const std::string& title) {
  render::TimelineOptions topt;
  topt.title = title;
  topt.key = run.scenario.lock.key;
  topt.replica = run.scenario.replica;
  std::vector<render::Highlight> highlights = highlights_of(run.run.verdict, entry.property);
  if (highlights.size() > 1) highlights.resize(1);
  topt.highlights = highlights;
  render::Timeline t = render::build_timeline(run.run.sim->history(), &run.run.sim->world().trace(), topt);
  t.highlights = highlights;
  return t;
}

std::string tour_html(const TourOptions& options, bool* all_as_told) {
  bool told = true;
  std::vector<const props::CatalogueEntry*> entries;
  std::vector<const lock::Algorithm*> owners;
  for (const lock::Algorithm* a : tour_order()) {
    if (!options.only.empty() && a->id != options.only) continue;
    for (const auto& e : props::catalogue())
      if (e.model.base.algorithm == a->id && find_lesson(e.id)) entries.push_back(&e), owners.push_back(a);
  }
  props::EntryOptions eo;
  eo.check_fix = true;
  const std::vector<TimedOutcome> found =
      run_entries(entries, eo, std::max(1u, std::min(2u, std::thread::hardware_concurrency())));
  std::string body;
  const lock::Algorithm* previous = nullptr;
  int part = -1;
  for (size_t i = 0; i < entries.size(); ++i) {
    const int this_part = static_cast<int>(part_of(*owners[i]));
    if (this_part != part) body += fmt::format("<h3 class=\"part\">{}</h3>\n", kPartTitles[this_part]);
    part = this_part;
    // The previous version: the one before in the tour's order.
    const auto order = tour_order();
    const auto at = std::find(order.begin(), order.end(), owners[i]);
    previous = at == order.begin() ? nullptr : *(at - 1);
    body += chapter(*find_lesson(entries[i]->id), *entries[i], *owners[i], previous, found[i], told);
  }
  if (all_as_told) *all_as_told = told;
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>The Redis lock evolution, one failure "
      "at a time</title>\n<style>{}</style></head>\n<body>\n<h1>The Redis lock evolution, one failure at a time</h1>\n"
      "<div class=\"intro\"><p>Each chapter is one failure of one version of the lock: a scenario told for people, run "
      "in locksim's deterministic simulator when this page was made, drawn as a sequence diagram (time runs down; "
      "arrows are commands; the bar beside Redis is the key and its owner; shaded windows are faults; the red band is "
      "the violation). Step through it with <i>next</i>; <i>try it</i> shows the same scenario with one setting "
      "changed. Under each, the same failure as the random search found it without help.</p></div>\n"
      "{}<script>{}</script>\n</body></html>\n",
      kStyle, body, kScript);
}

int write_tour_html(const TourOptions& options) {
  bool told = true;
  write_file(options.html, tour_html(options, &told));
  std::cout << "wrote " << options.html << "\n";
  if (!told) std::cerr << "some chapters do not fail as told (marked in the page)\n";
  return told ? 0 : 1;
}

}  // namespace locksim::cli
