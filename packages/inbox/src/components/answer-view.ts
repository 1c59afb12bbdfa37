/** What every way of answering an interrupt (Agent Inbox, tool review, plain form) is given. */
import type { AnswerIssue } from "../api/types";
import type { Action } from "../domain/human-interrupt";

/** A keyboard shortcut for the item on screen; `seq` tells a new press from an old one. */
export interface ActionCommand {
  action: Action;
  seq: number;
}

export interface AnswerViewProps<A> {
  formId: string;
  busy: boolean;
  issues?: readonly AnswerIssue[];
  command?: ActionCommand | undefined;
  onAnswer: (answer: A) => void;
}
