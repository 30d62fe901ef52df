// Assertions on errors, for the C++ tests.
#pragma once
#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>
#include <vector>

// The message of the E that f throws; a test failure (and "") when it throws nothing.
template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "an exception of another type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

// f throws an E whose message contains every one of `words`.
template <class E>
void expect_error_naming(const std::function<void()>& f, const std::vector<std::string>& words) {
  std::string msg = message_of<E>(f);
  for (auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << "'" << w << "' not in: " << msg;
}
