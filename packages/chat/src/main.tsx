import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { hookInUrl } from "./domain/location";
import { ReactChat } from "./hooks/ReactChat";
import { SdkChat } from "./hooks/SdkChat";
import "./styles.css";

createRoot(document.getElementById("app")!).render(
  <StrictMode>{hookInUrl() === "react" ? <ReactChat /> : <SdkChat />}</StrictMode>,
);
