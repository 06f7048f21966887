// Given/when/then for a decider's specification tests, on Emmett's DeciderSpecification.
// Emmett 0.42's `then` only checks that each expected event is a subset of some produced event
// (any order, extra fields ignored) and fails outright on any `null` field in the expectation.
// This keeps its given/when/thenNothingHappened/thenThrows, and makes `then` an exact, ordered
// match.
import { DeciderSpecification } from '@event-driven-io/emmett';
import { expect } from 'vitest';

export const deciderSpec = <Command, Event, State>(decider: {
  decide: (command: Command, state: State) => Event | Event[];
  evolve: (state: State, event: Event) => State;
  initialState: () => State;
}) => {
  const spec = DeciderSpecification.for(decider);
  return (events: Event[]) => ({
    when: (command: Command) => ({
      ...spec(events).when(command),
      // biome-ignore lint/suspicious/noThenProperty: the given/when/then vocabulary of Emmett's spec
      then: (expected: Event[]) => {
        expect(
          decider.decide(command, events.reduce(decider.evolve, decider.initialState())),
        ).toStrictEqual(expected);
      },
    }),
  });
};
