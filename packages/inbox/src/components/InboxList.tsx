/** The pending interrupts as a listbox: click or j/k to select. */
import type { InboxItem } from "../api/types";
import { compactJson, formatAge, shortId } from "../domain/format";
import { asHumanInterrupt, titleOf } from "../domain/human-interrupt";
import { asToolReview } from "../domain/tool-review";
import { itemKey } from "../state/useInbox";

interface Props {
  items: InboxItem[];
  selected?: string | undefined;
  onSelect: (item: InboxItem) => void;
}

export const optionId = (key: string) => `item-${key.replace(/[^\w-]/g, "_")}`;

export function InboxList({ items, selected, onSelect }: Props) {
  return (
    <ul
      class="items"
      role="listbox"
      aria-label="Pending interrupts"
      tabIndex={0}
      aria-activedescendant={selected ? optionId(selected) : undefined}
    >
      {items.map((item) => {
        const key = itemKey(item);
        const hi = asHumanInterrupt(item.value);
        const review = hi ? undefined : asToolReview(item.value);
        const subtitle = hi
          ? compactJson(hi.action_request.args, 90)
          : review
            ? review.map((c) => compactJson(c.args, 60)).join(" · ")
            : item.response_schema
              ? "answer form"
              : "JSON answer";
        return (
          <li
            key={key}
            id={optionId(key)}
            role="option"
            aria-selected={key === selected}
            class={key === selected ? "item selected" : "item"}
            onClick={() => onSelect(item)}
          >
            <div class="item-top">
              <span class="item-title">{titleOf(item.value)}</span>
              <span class="age" title={item.created_at}>
                {formatAge(item.age_seconds)}
              </span>
            </div>
            <div class="item-sub">
              <span class="badge">{item.graph_id}</span>
              <span class="muted mono">{shortId(item.thread_id)}</span>
              <span class="muted ellipsis">{subtitle}</span>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
