// spire._C._rl: RL algorithms written as dataflow fragments (reinforcement/agents, /dataflow): a
// run parsed from a job file's text, trained under a distribution policy without the GIL (a
// Python callback and the progress lines take it back), evaluated, saved and resumed.
#include "common.h"

#include "reinforcement/agents/algorithms.h"
#include "reinforcement/agents/job.h"
#include "engine/parallel/runtime.h"
#include "reinforcement/dataflow/trainer.h"

namespace spire::python {
namespace {

namespace df = rl::dataflow;

// A run and the job it came from.
struct Run {
  rl::agents::Job job;
  std::shared_ptr<df::Trainer> trainer;
};

py::dict evaluation_dict(const df::Evaluation& e) {
  py::dict d;
  d["mean_return"] = e.mean_return();
  d["std_return"] = e.std_return();
  d["mean_length"] = e.mean_length();
  d["returns"] = e.returns;
  d["lengths"] = e.lengths;
  return d;
}

df::Trainer& learner_side(Run& r, const char* who) {
  SPIRE_CHECK(r.trainer->is_learner(), ValueError, who, ": this rank (", parallel::rank(),
              ") does not hold the learner; the learner's rank is ", r.trainer->placement().learner_rank);
  return *r.trainer;
}

}  // namespace

void bind_rl_agents(py::module_& rl) {
  rl.def("algorithms", &rl::agents::registered_algorithms, "the algorithms a job's `algorithm` may name");
  rl.def("policies", &df::registered_policies, "the distribution policies a job's `policy` may name");

  py::class_<Run, std::shared_ptr<Run>>(rl, "Run", "an RL run parsed from a job file's text")
      .def(py::init([](const std::string& text, const std::string& where, const std::string& policy) {
             auto r = std::make_shared<Run>();
             r->job = rl::agents::parse_job(text, where, policy);
             r->trainer = std::make_shared<df::Trainer>(r->job.instance, r->job.settings);
             return r;
           }),
           py::arg("text"), py::arg("where") = "config", py::arg("policy") = "")
      .def_static("from_checkpoint", [](const std::string& path, const std::string& policy) {
        auto r = std::make_shared<Run>();
        r->job = rl::agents::job_of_checkpoint(path, policy);
        r->trainer = std::make_shared<df::Trainer>(r->job.instance, r->job.settings);
        r->trainer->resume(path);
        return r;
      }, py::arg("path"), py::arg("policy") = "")
      .def("train", [](Run& r, py::object callback, py::object progress) {
        df::Trainer& t = *r.trainer;
        t.callback = logs_callback(callback);
        t.progress = line_callback(progress);
        struct Reset {
          df::Trainer& t;
          ~Reset() {
            t.callback = nullptr;
            t.progress = nullptr;
          }
        } reset{t};
        df::Summary s;
        {
          py::gil_scoped_release release;
          s = t.train();
        }
        py::dict d;
        d["env_steps"] = s.env_steps;
        d["updates"] = s.updates;
        d["episodes"] = s.episodes;
        d["stop_reason"] = s.stop_reason;
        d["seconds"] = s.seconds;
        d["evaluation"] = s.evaluation ? py::object(evaluation_dict(*s.evaluation)) : py::none();
        return d;
      }, py::arg("callback") = py::none(), py::arg("progress") = py::none())
      .def("evaluate", [](Run& r, int64_t episodes, int64_t envs, uint64_t seed) {
        df::Trainer& t = learner_side(r, "evaluate");
        df::Evaluation e;
        {
          py::gil_scoped_release release;
          e = t.evaluate(episodes, envs, seed);
        }
        return evaluation_dict(e);
      }, py::arg("episodes") = 100, py::arg("envs") = 10, py::arg("seed") = 0)
      .def("act", [](Run& r, py::handle observations) {
        df::Trainer& t = learner_side(r, "act");
        Tensor obs = to_tensor(observations);
        return t.learner()->act(obs);
      }, py::arg("observations"))
      .def("save", [](Run& r, const std::string& path) { learner_side(r, "save").save(path); }, py::arg("path"))
      .def("resume", [](Run& r, const std::string& path) { r.trainer->resume(path); }, py::arg("path"))
      .def_property_readonly("history", [](Run& r) {
        py::list out;
        for (const auto& l : r.trainer->history()) out.append(logs_dict(l));
        return out;
      })
      .def_property_readonly("algorithm", [](Run& r) { return r.job.algorithm; })
      .def_property_readonly("policy", [](Run& r) { return r.job.settings.policy; })
      .def_property_readonly("algorithm_settings", [](Run& r) { return r.job.instance->to_toml(); })
      .def_property_readonly("is_learner", [](Run& r) { return r.trainer->is_learner(); })
      .def_property_readonly("env_steps", [](Run& r) { return r.trainer->env_steps(); })
      .def_property_readonly("updates", [](Run& r) { return r.trainer->updates(); })
      .def_property_readonly("actor_ranks", [](Run& r) { return r.trainer->placement().actor_rank; });
}

}  // namespace spire::python
